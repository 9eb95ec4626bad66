import { describe, expect, it } from 'vitest';
import { trimTimeline, type TimelineEvent } from './timeline';

let seq = 0;
const event = (nodeId: string): TimelineEvent => {
  seq += 1;
  return {
    seq,
    nodeId,
    time: seq,
    seenAt: seq,
    kind: 'created',
    source: 'events',
    podId: 'p',
    podName: 'p',
    namespace: 'default',
  };
};
const nodesOf = (events: readonly TimelineEvent[]) => events.map((kept) => kept.nodeId).join('');

describe('trimTimeline', () => {
  it('keeps everything under the cap', () => {
    const events = [event('a'), event('b')];
    expect(trimTimeline(events, 2)).toEqual(events);
  });

  it('takes the excess from the node that holds the most, its oldest first', () => {
    // A quiet node's two events stay although a noisy node logged eight after them.
    const events = [event('q'), event('q'), ...Array.from({ length: 8 }, () => event('n'))];
    const kept = trimTimeline(events, 6);
    expect(nodesOf(kept)).toBe('qqnnnn');
    expect(kept.slice(2).map((kept) => kept.seq)).toEqual(events.slice(6).map((old) => old.seq));
  });

  it('lowers the largest nodes to one level, keeping the order of what stays', () => {
    const events = [
      ...Array.from({ length: 5 }, () => event('a')),
      ...Array.from({ length: 4 }, () => event('b')),
      event('c'),
    ];
    // 10 events, room for 7: a and b go down to 3 each (one of them keeps the odd one).
    const kept = trimTimeline(events, 7);
    expect(kept).toHaveLength(7);
    const count = (nodeId: string) => kept.filter((kept) => kept.nodeId === nodeId).length;
    expect([count('a'), count('b'), count('c')]).toEqual([3, 3, 1]);
    expect(kept.map((kept) => kept.seq)).toEqual(
      [...kept.map((kept) => kept.seq)].sort((x, y) => x - y),
    );
  });

  it('gives the same result however often it is applied on the way', () => {
    const events = Array.from({ length: 50 }, (_, index) => event(index % 7 === 0 ? 'q' : 'n'));
    const once = trimTimeline(events, 20);
    expect(trimTimeline(once, 20)).toEqual(once);
    expect(once).toHaveLength(20);
    expect(once.filter((kept) => kept.nodeId === 'q')).toHaveLength(8);
  });

  it('keeps nothing with no room', () => {
    expect(trimTimeline([event('a'), event('b')], 0)).toEqual([]);
  });
});
