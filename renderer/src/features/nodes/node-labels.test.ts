import { describe, expect, it } from 'vitest';
import { shortNodeLabels } from './node-labels';

describe('shortNodeLabels', () => {
  it('keeps the words in which the names differ', () => {
    expect(shortNodeLabels(['lab containerd-1.6', 'lab containerd-2'])).toEqual([
      'containerd-1.6',
      'containerd-2',
    ]);
    expect(
      shortNodeLabels(['containerd (lab containerd-1.6)', 'containerd (lab containerd-2)']),
    ).toEqual(['containerd-1.6', 'containerd-2']);
    expect(shortNodeLabels(['node a (ssh)', 'node b (ssh)', 'node c (ssh)'])).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('keeps whole names that share nothing, are alike, or stand alone', () => {
    expect(shortNodeLabels(['containerd (CONTAINER_RUNTIME_ENDPOINT)', 'prod-7'])).toEqual([
      'containerd (CONTAINER_RUNTIME_ENDPOINT)',
      'prod-7',
    ]);
    expect(shortNodeLabels(['lab', 'lab'])).toEqual(['lab', 'lab']);
    expect(shortNodeLabels(['lab containerd-2'])).toEqual(['lab containerd-2']);
    // One name is the other's start: the longer keeps what it adds, the shorter stays whole.
    expect(shortNodeLabels(['edge', 'edge 2'])).toEqual(['edge', '2']);
  });
});
