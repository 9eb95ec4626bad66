/**
 * A frozen runtime (its socket open, nothing answered: a runtime stopped with SIGSTOP or
 * deadlocked) is seen by the health probe and shown as "not answering", not as failed,
 * while Porthole reconnects by the recovery rules; once it answers again, the node is
 * connected and its list comes back with a reset. A node beside it is untouched. Through
 * the real core and RPC, against fake CRI nodes (test/fakes/cri-node.ts): no lab runtime
 * can be frozen without freezing it for every other test.
 *
 * How fast it is seen is a bench figure (`npm run bench -- --only fleet`), not asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import type { Disposable } from '../../shared/lifecycle';
import {
  applyNodesDelta,
  type NodeStatus,
  type NodesDelta,
  type ResourceDelta,
} from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { FakeCriNode } from '../fakes/cri-node';

function eventually<T>(probe: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(probe, { timeout: 30_000, interval: 50 });
}

describe('a frozen runtime', () => {
  let dir: string;
  let frozen: FakeCriNode;
  let survivor: FakeCriNode;
  let core: Core;
  let client: RpcClient;
  let nodes: readonly NodeStatus[] = [];
  const disposables: Disposable[] = [];
  const deltas = new Map<string, ResourceDelta[]>();
  let frozenId = '';
  let survivorId = '';

  const status = (nodeId: string): NodeStatus | undefined =>
    nodes.find((node) => node.nodeId === nodeId);
  const containersOf = (nodeId: string): Set<string> => {
    const ids = new Set<string>();
    for (const delta of deltas.get(nodeId) ?? []) {
      if (delta.reset) ids.clear();
      for (const row of delta.containers.upserted) ids.add(row.id);
      for (const id of delta.containers.removed) ids.delete(id);
    }
    return ids;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-frozen-'));
    frozen = await FakeCriNode.start({ socketPath: join(dir, 'frozen.sock'), name: 'frozen' });
    survivor = await FakeCriNode.start({
      socketPath: join(dir, 'survivor.sock'),
      name: 'survivor',
      churnMs: [100, 300],
    });
    core = createCore({
      configDir: dir,
      logFile: false,
      env: { CONTAINER_RUNTIME_ENDPOINT: frozen.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
    });
    const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
    serve(serverPort, core.services, core.events);
    client = createClient(clientPort);
    disposables.push(
      client.subscribe('nodes', undefined, (delta: NodesDelta) => {
        nodes = applyNodesDelta(nodes, delta);
      }),
    );
    frozenId = `local:${frozen.endpoint}`;
    survivorId = (
      await client.services.nodes.saveProfile({
        kind: 'local',
        name: 'survivor',
        endpoint: survivor.endpoint,
      })
    ).id;
    for (const nodeId of [frozenId, survivorId]) {
      await client.services.nodes.connect(nodeId);
      deltas.set(nodeId, []);
      disposables.push(
        client.subscribe('resources', { nodeId }, (delta) => deltas.get(nodeId)?.push(delta)),
      );
    }
  });

  afterAll(async () => {
    for (const disposable of disposables.splice(0)) disposable.dispose();
    client?.dispose();
    core?.dispose();
    await frozen?.stop();
    await survivor?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('is shown as not answering, comes back by itself, and leaves the node beside it alone', async () => {
    await eventually(() => expect(containersOf(frozenId).size).toBe(100));
    await eventually(() => expect(containersOf(survivorId).size).toBe(100));
    // Known once the event stream has answered, which connecting doesn't wait for.
    await eventually(() => expect(status(frozenId)?.updates).toBe('events'));

    frozen.freeze();
    const down = await eventually(() => {
      const current = status(frozenId);
      expect(current?.state).toBe('reconnecting');
      return current;
    });
    expect(down?.outage?.kind).toBe('not-answering');
    expect(down?.outage?.error.code).toBe('deadline-exceeded');
    // Last known facts stay on the card, marked as of when it last answered.
    expect(down?.runtime?.runtimeName).toBe('fake-cri');

    // The node beside it goes on: connected, its changes still arriving.
    const seen = deltas.get(survivorId)?.length ?? 0;
    await eventually(() => expect(deltas.get(survivorId)?.length ?? 0).toBeGreaterThan(seen + 2));
    expect(status(survivorId)?.state).toBe('connected');
    expect(status(survivorId)?.outage).toBeUndefined();

    const resets = deltas.get(frozenId)?.filter((delta) => delta.reset).length ?? 0;
    frozen.thaw();
    await eventually(() => expect(status(frozenId)?.state).toBe('connected'));
    await eventually(() =>
      expect(deltas.get(frozenId)?.filter((delta) => delta.reset).length).toBe(resets + 1),
    );
    // Events flow again: a change on the node reaches the subscriber as a delta.
    const change = frozen.change();
    await eventually(() => {
      const ids = containersOf(frozenId);
      if (change.state === 'exited') {
        const last = (deltas.get(frozenId) ?? [])
          .flatMap((delta) => delta.containers.upserted)
          .filter((row) => row.id === change.containerId)
          .at(-1);
        expect(last?.state).toBe('exited');
      } else {
        expect(ids.has(change.containerId)).toBe(true);
      }
    });
    expect(containersOf(frozenId).size).toBe(100);
  });
});
