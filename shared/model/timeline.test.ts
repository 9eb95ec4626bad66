import { describe, expect, it } from 'vitest';
import { BoundedTimeline, type TimelineEvent } from './timeline';

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
const many = (nodeId: string, count: number) => Array.from({ length: count }, () => event(nodeId));
const nodesOf = (events: readonly TimelineEvent[]) => events.map((kept) => kept.nodeId).join('');
const countOf = (events: readonly TimelineEvent[], nodeId: string) =>
  events.filter((kept) => kept.nodeId === nodeId).length;

describe('BoundedTimeline', () => {
  it('keeps everything under the cap, in order', () => {
    const kept = new BoundedTimeline(3);
    const events = [event('a'), event('b')];
    kept.add(events);
    expect(kept.events).toEqual(events);
  });

  it('takes the excess from the node that holds the most, its oldest first', () => {
    // A quiet node's two events stay although a noisy node logged eight after them.
    const kept = new BoundedTimeline(6);
    const noisy = many('n', 8);
    kept.add([event('q'), event('q')]);
    for (const one of noisy) kept.add([one]);
    expect(nodesOf(kept.events)).toBe('qqnnnn');
    expect(kept.events.slice(2)).toEqual(noisy.slice(4));
  });

  it('lowers the largest nodes to one level; among equals the id sorting last gives way', () => {
    const kept = new BoundedTimeline(8);
    kept.add([...many('a', 5), ...many('b', 4), event('c')]);
    // 10 events, room for 8: a goes down to b's 4, then b gives way first.
    expect([
      countOf(kept.events, 'a'),
      countOf(kept.events, 'b'),
      countOf(kept.events, 'c'),
    ]).toEqual([4, 3, 1]);
    const seqs = kept.events.map((kept) => kept.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  });

  it('keeps the same events however the same batches come (core and view agree)', () => {
    const batches = [many('a', 30), [event('q')], many('b', 12), many('a', 3), [event('q')]];
    const core = new BoundedTimeline(20);
    const view = new BoundedTimeline(20);
    for (const batch of batches) core.add(batch);
    // The view starts from the core's events at some point, then gets the same batches.
    view.reset(core.events.slice(0, 0));
    for (const batch of batches) view.add(batch);
    expect(view.events).toEqual(core.events);
    expect(countOf(core.events, 'q')).toBe(2);
    const fresh = new BoundedTimeline(20);
    fresh.reset(core.events);
    expect(fresh.events).toEqual(core.events);
  });

  it('keeps nothing with no room, and forgets on reset', () => {
    const none = new BoundedTimeline(0);
    none.add([event('a')]);
    expect(none.events).toEqual([]);
    const kept = new BoundedTimeline(5);
    kept.add(many('a', 5));
    kept.reset([]);
    kept.add([event('b')]);
    expect(nodesOf(kept.events)).toBe('b');
  });
});
