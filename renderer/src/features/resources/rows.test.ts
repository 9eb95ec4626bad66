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

  it("counts a node's pod sandboxes as users of its sandbox image", () => {
    const { index, delta } = loadedIndex();
    const nodeId = index.pods.values().next().value?.nodeId ?? '';
    const pause = {
      nodeId,
      id: 'sha256:pause',
      repoTags: ['registry.k8s.io/pause:3.9'],
      repoDigests: [],
      sizeBytes: 1,
      pinned: true,
    };
    const withPause = applyDelta(index, {
      ...delta,
      reset: false,
      pods: { upserted: [], removed: [] },
      containers: { upserted: [], removed: [] },
      images: { upserted: [pause], removed: [] },
    });
    const row = (rows: ReturnType<RowCache['imageRows']>) =>
      rows.find((image) => image.id === 'sha256:pause');
    // Named by the runtime (containerd 1.6's status), or its only pinned image (2.x, CRI-O).
    const named = row(
      new RowCache().imageRows(withPause, new Map([[nodeId, pause.repoTags[0] ?? '']])),
    );
    expect(named).toMatchObject({ usedBy: 0, sandboxes: index.pods.size });
    // Unnamed: the node's only pinned image is it; with two pinned, neither is counted.
    const pinned = new RowCache().imageRows(index).filter((image) => image.pinned);
    expect(pinned.map((image) => image.sandboxes)).toEqual([index.pods.size]);
    expect(row(new RowCache().imageRows(withPause))?.sandboxes).toBe(0);
    // Another image named: this one runs no sandbox.
    expect(
      row(new RowCache().imageRows(withPause, new Map([[nodeId, 'other/pause:1']])))?.sandboxes,
    ).toBe(0);
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
