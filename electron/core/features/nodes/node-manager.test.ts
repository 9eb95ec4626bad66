import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { DiscoveredEndpoint, NodeStatus, ResourceDelta } from '../../../../shared/model';
import type { DiscoveryResult } from '../../base/connect';
import { FakeNodeClient, fakePod, fakeRuntime } from './testing/fake-node-client';
import { NodeManager, discoveredNodeId } from './node-manager';

const ready = (endpoint: string): DiscoveredEndpoint => ({
  endpoint,
  imageEndpoint: endpoint,
  source: 'environment',
  origin: 'CONTAINER_RUNTIME_ENDPOINT',
  probe: { state: 'ready', info: fakeRuntime },
});

const absentWellKnown = (endpoint: string): DiscoveredEndpoint => ({
  endpoint,
  imageEndpoint: endpoint,
  source: 'well-known',
  origin: 'CRI-O',
  probe: { state: 'absent', errorCode: 'not-found', message: 'No socket.' },
});

describe('NodeManager', () => {
  let dir: string;
  let clients: Map<string, FakeNodeClient>;
  let discovered: DiscoveredEndpoint[];
  let manager: NodeManager;

  const create = (): NodeManager =>
    new NodeManager({
      configDir: dir,
      // Fast health probes and reconnects; the defaults are tested in runtime-monitor.test.ts.
      monitorTimings: {
        quietMs: 20,
        backoff: { initialDelayMs: 5, maxDelayMs: 20, factor: 2, jitter: 0.2 },
      },
      discover: (): Promise<DiscoveryResult> =>
        Promise.resolve({ endpoints: discovered, warnings: [], sources: [] }),
      createClient: ({ endpoint }) => {
        const client = new FakeNodeClient(endpoint);
        if (endpoint.includes('broken')) {
          client.failure = new AppError({
            code: 'unavailable',
            message: 'No runtime is listening.',
            hint: 'Start it.',
          });
        }
        clients.set(endpoint, client);
        return client;
      },
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-nodes-'));
    clients = new Map();
    discovered = [ready('unix:///run/a.sock'), absentWellKnown('unix:///run/crio/crio.sock')];
    manager = create();
  });

  afterEach(async () => {
    manager.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists discovered runtimes (not absent well-known sockets) with their runtime info', async () => {
    const nodes = await manager.list();
    expect(nodes).toEqual([
      expect.objectContaining({
        nodeId: discoveredNodeId('unix:///run/a.sock'),
        origin: 'discovered',
        state: 'disconnected',
        runtime: fakeRuntime,
      }),
    ]);
  });

  it('saves profiles to nodes.json atomically and reads them back', async () => {
    const saved = await manager.saveProfile({
      kind: 'local',
      name: 'Lab',
      endpoint: 'unix:///run/b.sock',
      autoConnect: false,
    });
    expect(saved.id).toMatch(/^profile-/);
    const file = join(dir, 'nodes.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, profiles: [saved] });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const again = create();
    const nodes = await again.list();
    again.dispose();
    expect(nodes[0]).toMatchObject({ nodeId: saved.id, origin: 'saved', profile: saved });
  });

  it('keeps both of two concurrent saves', async () => {
    await Promise.all([
      manager.saveProfile({ kind: 'local', name: 'One', endpoint: 'unix:///one.sock' }),
      manager.saveProfile({ kind: 'local', name: 'Two', endpoint: 'unix:///two.sock' }),
    ]);
    const names = (await manager.list()).filter((n) => n.origin === 'saved').map((n) => n.name);
    expect(names.sort()).toEqual(['One', 'Two']);
  });

  it('refuses invalid profiles with an AppError naming the problem', async () => {
    await expect(
      manager.saveProfile({ kind: 'local', name: '', endpoint: 'unix:///x.sock' }),
    ).rejects.toMatchObject({ code: 'invalid-argument', message: 'Give the node a name.' });
    await expect(
      manager.saveProfile({ kind: 'local', name: 'x', endpoint: 'tcp://1.2.3.4:1' }),
    ).rejects.toMatchObject({ code: 'unsupported-endpoint', hint: expect.any(String) as string });
  });

  it('hides a discovered runtime once a profile points at it', async () => {
    await manager.saveProfile({ kind: 'local', name: 'Mine', endpoint: 'unix:///run/a.sock' });
    const nodes = await manager.list();
    expect(nodes.map((n) => [n.name, n.origin])).toEqual([['Mine', 'saved']]);
  });

  it('connects several nodes at once, one client each, and disposes it on disconnect', async () => {
    const saved = await manager.saveProfile({
      kind: 'local',
      name: 'B',
      endpoint: 'unix:///run/b.sock',
    });
    const a = discoveredNodeId('unix:///run/a.sock');
    const [first, second] = await Promise.all([manager.connect(a), manager.connect(saved.id)]);
    // Connected on the runtime's facts alone: capabilities come after, "unknown" until then.
    expect(first).toMatchObject({ state: 'connected', runtime: fakeRuntime });
    expect(second).toMatchObject({ state: 'connected' });
    await expect.poll(() => manager.statuses().find((n) => n.nodeId === a)?.updates).toBe('events');
    expect(clients.size).toBe(2);
    // Connecting again reuses the connection.
    await manager.connect(a);
    expect(clients.size).toBe(2);

    await manager.disconnect(a);
    expect(clients.get('unix:///run/a.sock')?.disposed).toBe(true);
    expect(clients.get('unix:///run/b.sock')?.disposed).toBe(false);
    expect(() => manager.client(a)).toThrow(/not connected/);
  });

  it('reports polling for runtimes without container events', async () => {
    const client = new FakeNodeClient('unix:///run/old.sock');
    client.supportsEvents = false;
    const polling = new NodeManager({
      configDir: dir,
      discover: () =>
        Promise.resolve({ endpoints: [ready(client.endpoint)], warnings: [], sources: [] }),
      createClient: () => client,
    });
    const node = discoveredNodeId(client.endpoint);
    expect(await polling.connect(node)).toMatchObject({ state: 'connected' });
    await expect
      .poll(() => polling.statuses().find((n) => n.nodeId === node)?.updates)
      .toBe('polling');
    polling.dispose();
  });

  it('shows a failed connection with its error, and emits each state change', async () => {
    await manager.saveProfile({ kind: 'local', name: 'Broken', endpoint: 'unix:///broken.sock' });
    const id = (await manager.list()).find((n) => n.name === 'Broken')?.nodeId ?? '';
    const seen: NodeStatus['state'][] = [];
    manager.onDidChange(({ upserted }) => {
      const state = upserted.find((s) => s.nodeId === id)?.state;
      if (state !== undefined && seen.at(-1) !== state) seen.push(state);
    });
    await expect(manager.connect(id)).rejects.toMatchObject({
      code: 'unavailable',
      hint: 'Start it.',
    });
    expect(seen).toEqual(['connecting', 'failed']);
    const status = (await manager.list()).find((n) => n.nodeId === id);
    expect(status).toMatchObject({ state: 'failed', error: { code: 'unavailable' } });
    expect(clients.get('unix:///broken.sock')?.disposed).toBe(true);
  });

  it('refuses unknown nodes and removing discovered ones', async () => {
    await expect(manager.connect('nope')).rejects.toMatchObject({ code: 'not-found' });
    await expect(
      manager.removeProfile(discoveredNodeId('unix:///run/a.sock')),
    ).rejects.toMatchObject({ code: 'failed-precondition' });
  });

  it('removes a saved profile and disconnects it', async () => {
    const saved = await manager.saveProfile({
      kind: 'local',
      name: 'B',
      endpoint: 'unix:///b.sock',
    });
    await manager.connect(saved.id);
    await manager.removeProfile(saved.id);
    expect(clients.get('unix:///b.sock')?.disposed).toBe(true);
    expect((await manager.list()).some((n) => n.nodeId === saved.id)).toBe(false);
  });

  it('connects autoConnect profiles at start', async () => {
    await writeFile(
      join(dir, 'nodes.json'),
      JSON.stringify({
        version: 1,
        profiles: [
          {
            id: 'p1',
            kind: 'local',
            name: 'Auto',
            endpoint: 'unix:///auto.sock',
            autoConnect: true,
          },
          { id: 'bad', kind: 'ssh' },
        ],
      }),
    );
    manager = create();
    const nodes = await manager.list();
    expect(nodes.find((n) => n.nodeId === 'p1')?.state).toBe('connected');
    // The malformed entry is skipped, not fatal.
    expect(nodes.some((n) => n.nodeId === 'bad')).toBe(false);
    expect((await manager.discover()).warnings.join('\n')).toMatch(/profile 1 was skipped/);
  });

  it('ends resource subscriptions when their node disconnects', async () => {
    const a = discoveredNodeId('unix:///run/a.sock');
    await manager.connect(a);
    const errors: AppError[] = [];
    manager.watchResources(a, { next: () => undefined, error: (e) => errors.push(e) });
    await manager.disconnect(a);
    expect(errors.map((e) => e.code)).toEqual(['failed-precondition']);
    expect(() =>
      manager.watchResources(a, { next: () => undefined, error: () => undefined }),
    ).toThrow(/not connected/);
  });

  describe('when the runtime goes away', () => {
    const a = discoveredNodeId('unix:///run/a.sock');
    const gone = new AppError({ code: 'unavailable', message: 'The runtime went away.' });

    /** Resolves with the first status of `a` that `test` accepts. */
    const statusOf = (test: (status: NodeStatus) => boolean): Promise<NodeStatus> =>
      new Promise((resolve) => {
        const check = (statuses: readonly NodeStatus[]): void => {
          const status = statuses.find((candidate) => candidate.nodeId === a);
          if (status !== undefined && test(status)) {
            subscription.dispose();
            resolve(status);
          }
        };
        const subscription = manager.onDidChange((delta) => check(delta.upserted));
        check(manager.statuses());
      });

    it('goes to reconnecting with nothing subscribed, and comes back by itself', async () => {
      await manager.connect(a);
      const client = clients.get('unix:///run/a.sock')!;
      const connectedAt = manager.statuses().find((n) => n.nodeId === a)?.connectedAt ?? 0;
      client.failure = gone;
      const down = await statusOf((status) => status.state === 'reconnecting');
      expect(down).toMatchObject({
        error: { message: 'The runtime went away.' },
        outage: { attempt: 1, error: { code: 'unavailable' } },
        runtime: fakeRuntime,
      });
      expect(down.runtimeAsOf).toBe(down.outage?.lastSeenAt);
      expect(down.runtimeAsOf).toBeLessThanOrEqual(down.outage!.since);
      // Still the same client: forwards and terminals holding it keep it.
      expect(manager.client(a)).toBe(client);

      await statusOf((status) => (status.outage?.attempt ?? 0) >= 3);
      client.failure = undefined;
      const back = await statusOf((status) => status.state === 'connected');
      expect(back.outage).toBeUndefined();
      expect(back.error).toBeUndefined();
      expect(back.connectedAt).toBeGreaterThan(connectedAt);
      // Each attempt dialled afresh.
      expect(client.reconnects).toBeGreaterThanOrEqual(3);
      expect(clients.size).toBe(1);
    });

    it('resumes subscriptions with a reset, then deltas, and says so when the version changed', async () => {
      await manager.connect(a);
      const client = clients.get('unix:///run/a.sock')!;
      client.pods = [fakePod('p1')];
      const deltas: ResourceDelta[] = [];
      const errors: AppError[] = [];
      manager.watchResources(a, { next: (d) => deltas.push(d), error: (e) => errors.push(e) });
      await manager.refreshResources(a);
      expect(deltas.map((d) => d.reset)).toEqual([true]);

      client.failure = gone;
      client.drop();
      await statusOf((status) => status.state === 'reconnecting');
      const before = deltas.length;
      client.pods = [fakePod('p1'), fakePod('p2')];
      client.runtime = { ...fakeRuntime, runtimeVersion: '2.0.0' };
      client.supportsEvents = false;
      client.failure = undefined;
      const back = await statusOf((status) => status.state === 'connected');
      expect(back.runtimeChange).toMatchObject({ from: 'fakerd 1.0.0', to: 'fakerd 2.0.0' });
      expect(back.runtime?.runtimeVersion).toBe('2.0.0');
      // Capabilities are probed again: the new version has no events.
      await statusOf((status) => status.updates === 'polling');
      expect(manager.statuses().find((n) => n.nodeId === a)?.capabilities?.containerEvents).toBe(
        'unsupported',
      );

      await manager.refreshResources(a);
      const after = deltas.slice(before);
      expect(after[0]).toMatchObject({ reset: true });
      expect(after[0]?.pods.upserted.map((pod) => pod.id).sort()).toEqual(['p1', 'p2']);
      client.pods = [fakePod('p2')];
      await manager.refreshResources(a);
      expect(deltas.at(-1)).toMatchObject({ reset: false, pods: { removed: ['p1'] } });
      expect(errors).toEqual([]);
    });

    it('re-reads the runtime after a drop it survived, without an outage', async () => {
      await manager.connect(a);
      const client = clients.get('unix:///run/a.sock')!;
      const seen: NodeStatus['state'][] = [];
      manager.onDidChange(({ upserted }) => {
        const state = upserted.find((s) => s.nodeId === a)?.state;
        if (state !== undefined) seen.push(state);
      });
      client.runtime = { ...fakeRuntime, runtimeVersion: '1.0.1' };
      client.drop();
      const status = await statusOf((candidate) => candidate.runtimeChange !== undefined);
      expect(status.runtimeChange).toMatchObject({ from: 'fakerd 1.0.0', to: 'fakerd 1.0.1' });
      expect(seen.every((state) => state === 'connected')).toBe(true);
      expect(client.reconnects).toBe(1);
    });

    it('Connect while reconnecting tries at once over a new connection, and says why not', async () => {
      await manager.connect(a);
      const client = clients.get('unix:///run/a.sock')!;
      client.failure = gone;
      await statusOf((status) => status.state === 'reconnecting');
      const reconnects = client.reconnects;
      await expect(manager.connect(a)).rejects.toMatchObject({ message: 'The runtime went away.' });
      expect(client.reconnects).toBeGreaterThan(reconnects);
      client.failure = undefined;
      await expect(manager.connect(a)).resolves.toMatchObject({ state: 'connected' });
    });

    it('keeps its name when discovery runs again while its runtime is down', async () => {
      await manager.connect(a);
      const name = manager.statuses().find((n) => n.nodeId === a)?.name;
      expect(name).toBe('fakerd (CONTAINER_RUNTIME_ENDPOINT)');
      clients.get('unix:///run/a.sock')!.failure = gone;
      await statusOf((status) => status.state === 'reconnecting');
      discovered = [
        {
          ...ready('unix:///run/a.sock'),
          probe: { state: 'refused', errorCode: 'unavailable', message: 'Nothing answers.' },
        },
      ];
      await manager.discover();
      expect(manager.statuses().find((n) => n.nodeId === a)?.name).toBe(name);
    });

    it('stops trying once the user disconnects', async () => {
      await manager.connect(a);
      const client = clients.get('unix:///run/a.sock')!;
      client.failure = gone;
      await statusOf((status) => status.state === 'reconnecting');
      await manager.disconnect(a);
      expect(manager.statuses().find((n) => n.nodeId === a)?.state).toBe('disconnected');
      expect(client.disposed).toBe(true);
      const calls = client.calls.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(client.calls.length).toBe(calls);
    });
  });
});
