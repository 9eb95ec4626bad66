/**
 * The rows' derived lists are patched when a few rows change (RowCache's rows and sort,
 * VisibleRows' filter): whatever the changes, each answer must be the one a fresh build
 * gives. Random deltas (seeded) against fresh builds, step by step.
 */
import { describe, expect, it } from 'vitest';
import type { ContainerState, ResourceDelta } from '../../../../shared/model';
import { applyDeltas, dropNode, emptyIndex, type ResourceIndex } from './delta';
import { emptyFilter, filterRows, type ResourceFilter } from './filter';
import type { ContainerItem, PodItem } from './model';
import { RowCache, rowsChangeOf } from './rows';
import { sortRows, type SortState } from './sort';
import { VisibleRows } from './visible';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const states: readonly ContainerState[] = ['created', 'running', 'exited', 'unknown'];

function pod(nodeId: string, at: number): PodItem {
  return {
    nodeId,
    id: `p${at}`,
    name: `pod-${at % 7}`,
    namespace: `ns-${at % 3}`,
    uid: `u${at}`,
    attempt: 0,
    state: 'ready',
    createdAt: at,
    labels: {},
    annotations: {},
    runtimeHandler: '',
  };
}

function container(nodeId: string, at: number, next: () => number): ContainerItem {
  return {
    nodeId,
    id: `c${at}`,
    podSandboxId: `p${Math.floor(next() * 6)}`,
    name: `app-${Math.floor(next() * 9)}`,
    attempt: 0,
    image: 'busybox',
    imageRef: 'sha256:b',
    state: states[Math.floor(next() * states.length)] ?? 'running',
    createdAt: Math.floor(next() * 1000),
    labels: {},
    annotations: {},
  };
}

function randomDelta(next: () => number, nodes: number): ResourceDelta {
  const nodeId = `n${Math.floor(next() * nodes)}`;
  const reset = next() < 0.05;
  const pick = (count: number): number => Math.floor(next() * count);
  const touched = reset ? 12 : 1 + pick(3);
  const containers = Array.from({ length: touched }, () => container(nodeId, pick(20), next));
  const removed = reset ? [] : Array.from({ length: pick(2) }, () => `c${pick(20)}`);
  const pods =
    reset || next() < 0.1 ? Array.from({ length: reset ? 6 : 1 }, () => pod(nodeId, pick(6))) : [];
  return {
    nodeId,
    reset,
    pods: { upserted: pods, removed: !reset && next() < 0.05 ? [`p${pick(6)}`] : [] },
    containers: { upserted: containers, removed },
    images: { upserted: [], removed: [] },
    updatedAt: 0,
  };
}

const byKey = <R extends { readonly key: string }>(rows: readonly R[]): R[] =>
  [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

describe('the derived lists, patched', () => {
  it('equal a fresh build after every change: rows, sort, filter, total', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      let index: ResourceIndex = emptyIndex;
      const cache = new RowCache();
      const visible = new VisibleRows<'containers'>();
      const pods = new VisibleRows<'pods'>();
      const sort: SortState = { column: 'name', direction: seed === 2 ? 'desc' : 'asc' };
      const filter: ResourceFilter = { ...emptyFilter, text: seed === 3 ? '' : 'app-1' };
      const nodeId = seed === 3 ? 'n1' : undefined;
      let patched = 0;
      for (let step = 0; step < 150; step += 1) {
        index =
          next() < 0.01
            ? dropNode(index, `n${Math.floor(next() * 4)}`)
            : applyDeltas(index, [randomDelta(next, 4)]);
        const fresh = new RowCache();
        const all = cache.containerRows(index);
        expect(byKey(all)).toEqual(byKey(fresh.containerRows(index)));
        const sorted = cache.sorted('containers', all, sort);
        if (rowsChangeOf(sorted) !== undefined) patched += 1;
        expect(sorted).toEqual(sortRows('containers', fresh.containerRows(index), sort));
        const shown = visible.compute('containers', all, sorted, filter, nodeId, undefined, sort);
        expect(shown.rows).toEqual(filterRows('containers', sorted, filter, nodeId).rows);
        expect(shown.total).toBe(
          all.filter((row) => nodeId === undefined || row.nodeId === nodeId).length,
        );
        const podRows = cache.podRows(index);
        expect(byKey(podRows)).toEqual(byKey(fresh.podRows(index)));
        const podsSorted = cache.sorted('pods', podRows, sort);
        expect(podsSorted).toEqual(sortRows('pods', fresh.podRows(index), sort));
        expect(
          pods.compute('pods', podRows, podsSorted, emptyFilter, nodeId, undefined, sort).rows,
        ).toEqual(filterRows('pods', podsSorted, emptyFilter, nodeId).rows);
      }
      // The patched path ran, not only the fresh one.
      expect(patched).toBeGreaterThan(50);
    }
  });

  it('keeps an unchanged row and patches the one that changed', () => {
    const next = random(7);
    const first = randomDelta(next, 1);
    let index = applyDeltas(emptyIndex, [{ ...first, reset: true }]);
    const cache = new RowCache();
    const before = cache.containerRows(index);
    const target = before[0];
    if (target === undefined) throw new Error('no rows');
    const {
      key: _key,
      podKey: _podKey,
      podName: _podName,
      namespace: _ns,
      search: _search,
      ...item
    } = target;
    index = applyDeltas(index, [
      {
        ...first,
        reset: false,
        pods: { upserted: [], removed: [] },
        containers: { upserted: [{ ...item, state: 'exited' }], removed: [] },
      },
    ]);
    const after = cache.containerRows(index);
    expect(rowsChangeOf(after)).toMatchObject({ from: before, removed: [target] });
    expect(after.filter((row, at) => row !== before[at])).toHaveLength(1);
  });
});
