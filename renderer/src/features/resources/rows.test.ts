import { describe, expect, it } from 'vitest';
import { applyDelta, emptyIndex } from './delta';
import { RowCache } from './rows';
import { createFakeCore } from '../../../../test/e2e/fixtures/fake-core';
import type { ResourceDelta } from '../../../../shared/model';

function loadedIndex() {
  const core = createFakeCore({ podsPerNode: 4, containersPerPod: 2, now: () => 1_000_000 });
  let delta: ResourceDelta | undefined;
  core.events.resources(
    { nodeId: core.nodeIds[0] ?? '' },
    { next: (d) => (delta = d), error: () => undefined },
  );
  if (delta === undefined) throw new Error('no reset');
  return { index: applyDelta(emptyIndex, delta), delta };
}

describe('RowCache', () => {
  it("joins containers to their pod's name and namespace, and counts them per pod", () => {
    const { index } = loadedIndex();
    const cache = new RowCache();
    const pods = cache.podRows(index);
    const containers = cache.containerRows(index);
    expect(pods.every((pod) => pod.containerCount === 2)).toBe(true);
    const container = containers[0];
    const pod = pods.find((candidate) => candidate.key === container?.podKey);
    expect(container?.podName).toBe(pod?.name);
    expect(container?.namespace).toBe(pod?.namespace);
    expect(container?.search).toContain(pod?.name.toLowerCase());
  });

  it('counts the containers that use each image', () => {
    const { index } = loadedIndex();
    const images = new RowCache().imageRows(index);
    expect(images.reduce((sum, image) => sum + image.usedBy, 0)).toBe(index.containers.size);
  });

  it('returns the same rows for the same index, and keeps unchanged rows across updates', () => {
    const { index, delta } = loadedIndex();
    const cache = new RowCache();
    const first = cache.containerRows(index);
    expect(cache.containerRows(index)).toBe(first);
    const changed = first[0];
    const next = applyDelta(index, {
      ...delta,
      reset: false,
      pods: { upserted: [], removed: [] },
      images: { upserted: [], removed: [] },
      containers: {
        upserted: [{ ...index.containers.get(changed?.key ?? '')!, state: 'exited' }],
        removed: [],
      },
    });
    const second = cache.containerRows(next);
    expect(second[0]).not.toBe(first[0]);
    expect(second[1]).toBe(first[1]);
  });
});
