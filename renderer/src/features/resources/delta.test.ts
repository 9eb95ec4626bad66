import { describe, expect, it } from 'vitest';
import type { ResourceDelta } from '../../../../shared/model';
import { applyDelta, applyDeltas, dropNode, emptyIndex, sameData } from './delta';
import { resourceKey, type ContainerItem, type PodItem } from './model';

function pod(nodeId: string, id: string, patch: Partial<PodItem> = {}): PodItem {
  return {
    nodeId,
    id,
    name: `pod-${id}`,
    namespace: 'default',
    uid: `uid-${id}`,
    attempt: 0,
    state: 'ready',
    createdAt: 1000,
    labels: { app: 'web' },
    annotations: {},
    runtimeHandler: '',
    ...patch,
  };
}

function container(nodeId: string, id: string, patch: Partial<ContainerItem> = {}): ContainerItem {
  return {
    nodeId,
    id,
    podSandboxId: 'p1',
    name: `c-${id}`,
    attempt: 0,
    image: 'busybox',
    imageRef: 'sha256:1',
    state: 'running',
    createdAt: 1000,
    labels: {},
    annotations: {},
    ...patch,
  };
}

function delta(nodeId: string, patch: Partial<ResourceDelta>): ResourceDelta {
  return {
    nodeId,
    reset: false,
    pods: { upserted: [], removed: [] },
    containers: { upserted: [], removed: [] },
    images: { upserted: [], removed: [] },
    updatedAt: 1,
    ...patch,
  };
}

describe('applyDelta', () => {
  it('loads a reset and keys items by node and id', () => {
    const index = applyDelta(
      emptyIndex,
      delta('n1', { reset: true, pods: { upserted: [pod('n1', 'p1')], removed: [] } }),
    );
    expect([...index.pods.keys()]).toEqual([resourceKey('n1', 'p1')]);
  });

  it('keeps the same id on two nodes apart', () => {
    let index = applyDelta(
      emptyIndex,
      delta('n1', { reset: true, pods: { upserted: [pod('n1', 'p1')], removed: [] } }),
    );
    index = applyDelta(
      index,
      delta('n2', { reset: true, pods: { upserted: [pod('n2', 'p1')], removed: [] } }),
    );
    expect(index.pods.size).toBe(2);
  });

  it('upserts and removes by id', () => {
    let index = applyDelta(
      emptyIndex,
      delta('n1', {
        reset: true,
        containers: { upserted: [container('n1', 'a'), container('n1', 'b')], removed: [] },
      }),
    );
    index = applyDelta(
      index,
      delta('n1', {
        containers: { upserted: [container('n1', 'a', { state: 'exited' })], removed: ['b'] },
      }),
    );
    expect([...index.containers.values()].map((c) => [c.id, c.state])).toEqual([['a', 'exited']]);
  });

  it('replaces only its own node on a reset', () => {
    let index = applyDelta(
      emptyIndex,
      delta('n1', {
        reset: true,
        pods: { upserted: [pod('n1', 'a'), pod('n1', 'b')], removed: [] },
      }),
    );
    index = applyDelta(
      index,
      delta('n2', { reset: true, pods: { upserted: [pod('n2', 'x')], removed: [] } }),
    );
    index = applyDelta(
      index,
      delta('n1', { reset: true, pods: { upserted: [pod('n1', 'b')], removed: [] } }),
    );
    expect([...index.pods.keys()].sort()).toEqual(
      [resourceKey('n1', 'b'), resourceKey('n2', 'x')].sort(),
    );
  });

  it('keeps the previous object for an item that came back equal (no re-render, no flicker)', () => {
    const first = pod('n1', 'p1');
    const index = applyDelta(
      emptyIndex,
      delta('n1', { reset: true, pods: { upserted: [first], removed: [] } }),
    );
    const again = applyDelta(
      index,
      delta('n1', { reset: true, pods: { upserted: [pod('n1', 'p1')], removed: [] } }),
    );
    expect(again).toBe(index);
    expect(again.pods.get(resourceKey('n1', 'p1'))).toBe(first);
  });

  it('returns the same maps for kinds the delta did not touch', () => {
    const index = applyDelta(
      emptyIndex,
      delta('n1', { reset: true, pods: { upserted: [pod('n1', 'p1')], removed: [] } }),
    );
    const next = applyDelta(
      index,
      delta('n1', { containers: { upserted: [container('n1', 'c')], removed: [] } }),
    );
    expect(next.pods).toBe(index.pods);
    expect(next.containers).not.toBe(index.containers);
  });

  it('tags items with the delta node', () => {
    const index = applyDelta(
      emptyIndex,
      delta('n1', { pods: { upserted: [pod('', 'p1')], removed: [] } }),
    );
    expect(index.pods.get(resourceKey('n1', 'p1'))?.nodeId).toBe('n1');
  });

  it('ignores removals of unknown ids', () => {
    const index = applyDelta(
      emptyIndex,
      delta('n1', { pods: { upserted: [], removed: ['nope'] } }),
    );
    expect(index).toBe(emptyIndex);
  });
});

describe('applyDeltas', () => {
  it('folds a batch in order, as one delta after another would', () => {
    const before = applyDelta(
      emptyIndex,
      delta('n1', {
        reset: true,
        pods: { upserted: [pod('n1', 'a'), pod('n1', 'b')], removed: [] },
      }),
    );
    const batch = [
      // n2's first snapshot, then a change on it, in the same frame.
      delta('n2', {
        reset: true,
        pods: { upserted: [pod('n2', 'x'), pod('n2', 'y')], removed: [] },
      }),
      delta('n2', { pods: { upserted: [pod('n2', 'z')], removed: ['x'] } }),
      // n1 reset again: "b" went, "a" came back equal, "c" is new.
      delta('n1', { pods: { upserted: [pod('n1', 'd')], removed: [] } }),
      delta('n1', {
        reset: true,
        pods: { upserted: [pod('n1', 'a'), pod('n1', 'c')], removed: [] },
      }),
    ];
    const batched = applyDeltas(before, batch);
    const oneByOne = batch.reduce(applyDelta, before);
    expect([...batched.pods.keys()].sort()).toEqual([...oneByOne.pods.keys()].sort());
    expect([...batched.pods.keys()].sort()).toEqual(
      [
        resourceKey('n1', 'a'),
        resourceKey('n1', 'c'),
        resourceKey('n2', 'y'),
        resourceKey('n2', 'z'),
      ].sort(),
    );
    // The unchanged pod keeps its object; untouched kinds keep their maps.
    expect(batched.pods.get(resourceKey('n1', 'a'))).toBe(before.pods.get(resourceKey('n1', 'a')));
    expect(batched.containers).toBe(before.containers);
    expect(applyDeltas(batched, [])).toBe(batched);
  });
});

describe('dropNode', () => {
  it("forgets one node's items and keeps the rest", () => {
    let index = applyDelta(
      emptyIndex,
      delta('n1', { reset: true, pods: { upserted: [pod('n1', 'a')], removed: [] } }),
    );
    index = applyDelta(
      index,
      delta('n2', { reset: true, pods: { upserted: [pod('n2', 'b')], removed: [] } }),
    );
    const dropped = dropNode(index, 'n1');
    expect([...dropped.pods.keys()]).toEqual([resourceKey('n2', 'b')]);
    expect(dropNode(dropped, 'n1')).toBe(dropped);
  });
});

describe('sameData', () => {
  it('compares plain JSON deeply', () => {
    expect(sameData({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(sameData({ a: [1] }, { a: [2] })).toBe(false);
    expect(sameData({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameData([], {})).toBe(false);
  });
});
