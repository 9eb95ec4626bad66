import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { createFakeCore, type FakeCore } from '../../../../test/e2e/fixtures/fake-core';
import { createAppModel, type AppModel } from '../../app/model';
import { createInMemoryPorthole } from '../../platform';
import { resourceKey } from './model';

let model: AppModel | undefined;

function start(core: FakeCore): AppModel {
  const client = createInMemoryPorthole(core.services, core.events);
  model = createAppModel(client, { schedule: (flush) => queueMicrotask(flush) });
  return model;
}

afterEach(() => {
  model?.dispose();
  model?.client.dispose();
  model = undefined;
});

describe('the resources store', () => {
  it("follows every connected node's stream", async () => {
    const core = createFakeCore({ nodes: 2, podsPerNode: 3, containersPerPod: 2 });
    const app = start(core);
    await vi.waitFor(() => expect(app.resources.getState().loaded.size).toBe(2));
    const { index } = app.resources.getState();
    expect(index.pods.size).toBe(6);
    expect(index.containers.size).toBe(12);
  });

  it('applies deltas as they arrive, batched', async () => {
    const core = createFakeCore({ podsPerNode: 2, containersPerPod: 1 });
    const app = start(core);
    await vi.waitFor(() => expect(app.resources.getState().loaded.size).toBe(1));
    const nodeId = core.nodeIds[0] ?? '';
    const [first] = app.resources.getState().index.containers.values();
    const updates = vi.fn();
    const unsubscribe = app.resources.subscribe(updates);
    await app.client.services.lifecycle.stopContainer(nodeId, first?.id ?? '', 0);
    await app.client.services.lifecycle.removeContainer(nodeId, 'unrelated');
    await vi.waitFor(() =>
      expect(
        app.resources.getState().index.containers.get(resourceKey(nodeId, first?.id ?? ''))?.state,
      ).toBe('exited'),
    );
    unsubscribe();
    expect(updates.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it('forgets a node when it disconnects', async () => {
    const core = createFakeCore({ nodes: 2, podsPerNode: 2 });
    const app = start(core);
    await vi.waitFor(() => expect(app.resources.getState().loaded.size).toBe(2));
    await app.client.services.nodes.disconnect(core.nodeIds[1] ?? '');
    await vi.waitFor(() => expect(app.resources.getState().index.pods.size).toBe(2));
    expect(app.resources.getState().loaded.has(core.nodeIds[1] ?? '')).toBe(false);
  });

  it('records why a stream ended, and subscribes again on retry', async () => {
    const core = createFakeCore({ podsPerNode: 1 });
    const app = start(core);
    const nodeId = core.nodeIds[0] ?? '';
    await vi.waitFor(() => expect(app.resources.getState().loaded.size).toBe(1));
    core.failStream(
      nodeId,
      new AppError({ code: 'unavailable', message: 'The runtime went away.', hint: 'Restart it.' }),
    );
    await vi.waitFor(() =>
      expect(app.resources.getState().errors[nodeId]).toMatchObject({
        message: 'The runtime went away.',
        hint: 'Restart it.',
      }),
    );
    app.resources.retry(nodeId);
    await vi.waitFor(() => expect(app.resources.getState().errors[nodeId]).toBeUndefined());
    expect(app.resources.getState().index.pods.size).toBe(1);
  });
});

describe('the nodes store', () => {
  it('shows the list as the core sends it, and merges what connect returns', async () => {
    const core = createFakeCore({ nodes: 1, connected: false });
    const app = start(core);
    await vi.waitFor(() => expect(app.nodes.getState().loaded).toBe(true));
    expect(app.nodes.getState().nodes[0]?.state).toBe('disconnected');
    const status = await app.client.services.nodes.connect(core.nodeIds[0] ?? '');
    app.nodes.getState().mergeStatus(status);
    expect(app.nodes.getState().nodes[0]?.state).toBe('connected');
  });
});
