/**
 * The forwards service over the RPC, on a fake node whose runtime has no pods: forwards
 * never become active here (the lab tests in test/integration/forwards-service.test.ts do
 * that), which is enough to check what doesn't need traffic — refusals that keep nothing,
 * saved forwards, auto-start on connect, stopping on disconnect, kill from the monitor.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForwardEntry, SessionSnapshot } from '../../../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../../../shared/rpc';
import { createCoreServices, type CoreServices } from '../../services';
import { discoveredNodeId } from '../nodes';
import { FakeNodeClient, fakeRuntime } from '../nodes/testing/fake-node-client';
import { ForwardStore } from './store';

const endpoint = 'unix:///run/fake.sock';
const nodeId = discoveredNodeId(endpoint);
const target = { kind: 'pod', namespace: 'demo', name: 'web' } as const;

function listen(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function eventually<T>(probe: () => T | Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe('ForwardManager (fake node)', () => {
  let dir: string;
  let core: CoreServices | undefined;
  let client: RpcClient | undefined;
  let forwards: readonly ForwardEntry[];
  let sessions: readonly SessionSnapshot[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-forwards-'));
    forwards = [];
    sessions = [];
  });

  afterEach(async () => {
    client?.dispose();
    core?.dispose();
    client = undefined;
    core = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  function start(): RpcClient {
    core = createCoreServices({
      configDir: dir,
      discover: () =>
        Promise.resolve({
          endpoints: [
            {
              endpoint,
              imageEndpoint: endpoint,
              source: 'environment',
              origin: 'CONTAINER_RUNTIME_ENDPOINT',
              probe: { state: 'ready', info: fakeRuntime },
            },
          ],
          warnings: [],
          sources: [],
        }),
      // A new client per connection, as the real node manager makes.
      createClient: () => new FakeNodeClient(endpoint),
    });
    const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
    serve(serverPort, core.services, core.events);
    client = createClient(clientPort);
    client.subscribe('forwards', undefined, (list) => (forwards = list));
    client.subscribe('sessions', undefined, (list) => (sessions = list));
    return client;
  }

  it('refuses a forward on a node that is not connected, keeping nothing', async () => {
    const rpc = start();
    await rpc.services.nodes.list();
    await expect(
      rpc.services.forwards.create(nodeId, { target, ports: [{ localPort: 0, remotePort: 80 }] }),
    ).rejects.toMatchObject({
      code: 'failed-precondition',
      message: expect.stringContaining('is not connected') as string,
    });
    expect(await rpc.services.forwards.list()).toEqual([]);
  });

  it('refuses bad specs and options with what is wrong', async () => {
    const rpc = start();
    await rpc.services.nodes.connect(nodeId);
    await expect(rpc.services.forwards.create(nodeId, { target, ports: [] })).rejects.toMatchObject(
      { code: 'invalid-argument', message: 'A forward needs at least one port.' },
    );
    await expect(
      rpc.services.forwards.create(nodeId, {
        target,
        ports: [{ localPort: 0, remotePort: 80 }],
        addresses: ['my-laptop'],
      }),
    ).rejects.toMatchObject({
      code: 'invalid-argument',
      message: expect.stringContaining('is not an IP address') as string,
    });
    await expect(
      rpc.services.forwards.create(nodeId, {
        target,
        ports: [
          { localPort: 8080, remotePort: 80 },
          { localPort: 8080, remotePort: 81 },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'invalid-argument',
      message: 'Local port 8080 is given twice.',
    });
    await expect(
      rpc.services.forwards.create(
        nodeId,
        { target, ports: [{ localPort: 0, remotePort: 80 }] },
        { autoStart: true },
      ),
    ).rejects.toMatchObject({
      code: 'invalid-argument',
      message: 'Only a saved forward can start by itself.',
    });
    await expect(rpc.services.forwards.stop('forward-nope')).rejects.toMatchObject({
      code: 'not-found',
    });
    expect(await rpc.services.forwards.list()).toEqual([]);
  });

  it('refuses a local port in use with a clear error, keeping nothing', async () => {
    const rpc = start();
    await rpc.services.nodes.connect(nodeId);
    const blocker = await listen();
    const busy = (blocker.address() as AddressInfo).port;
    try {
      await expect(
        rpc.services.forwards.create(nodeId, {
          target,
          ports: [{ localPort: busy, remotePort: 80 }],
        }),
      ).rejects.toMatchObject({
        code: 'already-exists',
        message: `Local port ${busy} is already in use on 127.0.0.1.`,
      });
      expect(await rpc.services.forwards.list()).toEqual([]);
      // The attempt is in the monitor's history, failed, with the reason.
      await eventually(() =>
        expect(sessions).toContainEqual(
          expect.objectContaining({ kind: 'port-forward', state: 'failed', killable: false }),
        ),
      );
    } finally {
      blocker.close();
    }
  });

  it('auto-starts saved forwards when their node connects, and stops them when it goes', async () => {
    await new ForwardStore(dir).load();
    const store = new ForwardStore(dir);
    await store.load();
    await store.save({
      id: 'forward-saved',
      nodeId,
      name: 'web admin',
      spec: { target, ports: [{ localPort: 0, remotePort: 8080 }] },
      autoStart: true,
    });
    await store.save({
      id: 'forward-manual',
      nodeId,
      spec: { target, ports: [{ localPort: 0, remotePort: 9000 }] },
      autoStart: false,
    });
    const rpc = start();
    await eventually(() =>
      expect(forwards.map((forward) => forward.id)).toEqual(['forward-saved', 'forward-manual']),
    );
    expect(forwards[0]).toMatchObject({ name: 'web admin', saved: true, autoStart: true });
    expect(forwards[1]).toMatchObject({ name: 'demo/web 9000', saved: true, autoStart: false });
    expect(forwards[0]?.live).toBeUndefined();

    await rpc.services.nodes.connect(nodeId);
    // Started on connect: its port is bound, and it looks for the pod (which never comes).
    const running = await eventually(() => {
      const entry = forwards.find((forward) => forward.id === 'forward-saved');
      expect(entry?.live?.ports).toHaveLength(1);
      return entry;
    });
    expect(running?.live?.state.name).toBe('starting');
    expect(forwards.find((forward) => forward.id === 'forward-manual')?.live).toBeUndefined();
    const session = await eventually(() => {
      const found = sessions.find((s) => s.kind === 'port-forward' && s.state === 'starting');
      expect(found?.detail).toMatch(/^127\.0\.0\.1:\d+ → 8080$/);
      return found;
    });
    expect(session).toMatchObject({ nodeId, target: { podName: 'web', namespace: 'demo' } });

    await rpc.services.nodes.disconnect(nodeId);
    const stopped = await eventually(() => {
      const entry = forwards.find((forward) => forward.id === 'forward-saved');
      expect(entry?.live).toBeUndefined();
      return entry;
    });
    expect(stopped?.lastError).toMatchObject({
      code: 'connection-lost',
      hint: 'It starts again when the node connects.',
    });
    await eventually(() =>
      expect(sessions.find((s) => s.id === session?.id)).toMatchObject({
        state: 'ended',
        stateReason: expect.stringContaining('was disconnected') as string,
      }),
    );

    // Connecting again starts it again, on the same local port, under the same id.
    await rpc.services.nodes.connect(nodeId);
    await eventually(() =>
      expect(
        forwards.find((forward) => forward.id === 'forward-saved')?.live?.ports[0]?.localPort,
      ).toBe(running?.live?.ports[0]?.localPort),
    );
  });

  it('stops a forward killed from the monitor; it stays listed and stays stopped', async () => {
    const store = new ForwardStore(dir);
    await store.load();
    await store.save({
      id: 'forward-k',
      nodeId,
      spec: { target, ports: [{ localPort: 0, remotePort: 80 }] },
      autoStart: true,
    });
    const rpc = start();
    await rpc.services.nodes.connect(nodeId);
    const session = await eventually(() => {
      const found = sessions.find((s) => s.kind === 'port-forward' && s.killable);
      expect(found).toBeDefined();
      return found as SessionSnapshot;
    });
    await rpc.services.sessions.kill(session.id);
    await eventually(() => expect(forwards[0]?.live).toBeUndefined());
    expect(forwards[0]?.lastError).toBeUndefined();
    expect(sessions.find((s) => s.id === session.id)).toMatchObject({
      state: 'ended',
      stateReason: 'Killed from the session monitor.',
    });
    // An unrelated node change does not start it again: auto-start is once per connection.
    await rpc.services.nodes.discover();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(forwards[0]?.live).toBeUndefined();
  });

  it('saves, renames and unsaves through update; remove forgets the file entry', async () => {
    const store = new ForwardStore(dir);
    await store.load();
    await store.save({
      id: 'forward-u',
      nodeId,
      spec: { target, ports: [{ localPort: 0, remotePort: 80 }] },
      autoStart: false,
    });
    const rpc = start();
    const path = join(dir, 'forwards.json');
    const renamed = await rpc.services.forwards.update('forward-u', {
      name: '  api  ',
      autoStart: true,
    });
    expect(renamed).toMatchObject({ name: 'api', saved: true, autoStart: true });
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({
      version: 1,
      forwards: [{ id: 'forward-u', name: 'api', autoStart: true }],
    });
    const unsaved = await rpc.services.forwards.update('forward-u', { save: false, name: '' });
    expect(unsaved).toMatchObject({ name: 'demo/web 80', saved: false, autoStart: false });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ version: 1, forwards: [] });
    await rpc.services.forwards.update('forward-u', { save: true });
    await rpc.services.forwards.remove('forward-u');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ version: 1, forwards: [] });
    expect(await rpc.services.forwards.list()).toEqual([]);
  });
  describe('when a node with forwards is removed', () => {
    const savedFile = async (): Promise<{ forwards: { nodeId: string; nodeName?: string }[] }> =>
      JSON.parse(await readFile(join(dir, 'forwards.json'), 'utf8')) as {
        forwards: { nodeId: string; nodeName?: string }[];
      };

    /**
     * A saved node (on the same fake runtime) with a saved forward and an unsaved one. The
     * fake runtime has no pods: the unsaved one stays "starting", enough here.
     */
    async function nodeWithForwards(): Promise<{ rpc: RpcClient; profileId: string }> {
      const profileId = 'profile-b';
      await writeFile(
        join(dir, 'nodes.json'),
        JSON.stringify({
          version: 1,
          profiles: [
            { id: profileId, kind: 'local', name: 'lab-b', endpoint: 'unix:///run/b.sock' },
          ],
        }),
      );
      const store = new ForwardStore(dir);
      await store.load();
      await store.save({
        id: 'forward-web',
        nodeId: profileId,
        name: 'web',
        spec: { target, ports: [{ localPort: 0, remotePort: 8080 }] },
        autoStart: false,
      });
      const rpc = start();
      await rpc.services.nodes.connect(profileId);
      rpc.services.forwards
        .create(profileId, { target, ports: [{ localPort: 0, remotePort: 9090 }] })
        .catch(() => undefined);
      await eventually(() => expect(forwards).toHaveLength(2));
      return { rpc, profileId };
    }

    it('keeps them, stopped, named after the node, and a kept one can be moved', async () => {
      const { rpc, profileId } = await nodeWithForwards();
      const profile = { id: profileId };
      expect(forwards.every((f) => f.nodeName === 'lab-b' && f.orphaned !== true)).toBe(true);

      await rpc.services.nodes.removeProfile(profile.id, { forwards: 'keep' });
      await eventually(() => expect(forwards.every((f) => f.orphaned === true)).toBe(true));
      for (const forward of forwards) {
        expect(forward).toMatchObject({ nodeId: profile.id, nodeName: 'lab-b' });
        expect(forward.live).toBeUndefined();
        expect(forward.lastError).toMatchObject({
          message: 'Stopped because lab-b was removed.',
          hint: 'Move it to another node to use it again.',
        });
      }
      expect((await savedFile()).forwards).toEqual([
        expect.objectContaining({ nodeId: profile.id, nodeName: 'lab-b' }),
      ]);

      const web = forwards.find((f) => f.name === 'web');
      expect(web?.saved).toBe(true);
      await expect(rpc.services.forwards.move(web?.id ?? '', 'nope')).rejects.toMatchObject({
        code: 'not-found',
      });
      const moved = await rpc.services.forwards.move(web?.id ?? '', nodeId);
      expect(moved).toMatchObject({ nodeId, name: 'web', saved: true });
      expect(moved.orphaned).toBeUndefined();
      expect(moved.nodeName).not.toBe('lab-b');
      expect((await savedFile()).forwards).toEqual([expect.objectContaining({ nodeId })]);
    });

    it('removes them when asked, saved ones from forwards.json too', async () => {
      const { rpc, profileId } = await nodeWithForwards();
      const profile = { id: profileId };
      await rpc.services.nodes.removeProfile(profile.id, { forwards: 'remove' });
      await eventually(() => expect(forwards).toEqual([]));
      expect((await savedFile()).forwards).toEqual([]);
      expect((await rpc.services.nodes.list()).some((n) => n.nodeId === profile.id)).toBe(false);
    });

    it('touches no forward when the node cannot be removed', async () => {
      const rpc = start();
      await rpc.services.nodes.connect(nodeId);
      rpc.services.forwards
        .create(nodeId, { target, ports: [{ localPort: 0, remotePort: 1 }] })
        .catch(() => undefined);
      await eventually(() => expect(forwards).toHaveLength(1));
      await expect(
        rpc.services.nodes.removeProfile(nodeId, { forwards: 'remove' }),
      ).rejects.toMatchObject({ code: 'failed-precondition' });
      expect(forwards).toHaveLength(1);
    });
  });
});

describe('ForwardStore', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-forward-store-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('skips malformed entries with a warning and keeps the others', async () => {
    await writeFile(
      join(dir, 'forwards.json'),
      JSON.stringify({
        version: 1,
        forwards: [
          {
            id: 'a',
            nodeId: 'n',
            spec: { target, ports: [{ localPort: 0, remotePort: 80 }] },
            autoStart: false,
          },
          {
            id: 'b',
            nodeId: 'n',
            spec: { target, ports: [{ localPort: 0, remotePort: 0 }] },
            autoStart: false,
          },
          { id: 'c', nodeId: 'n', spec: { target, ports: [] }, autoStart: 'yes' },
          {
            id: 'a',
            nodeId: 'n',
            spec: { target, ports: [{ localPort: 0, remotePort: 81 }] },
            autoStart: false,
          },
        ],
      }),
    );
    const store = new ForwardStore(dir);
    const { warnings } = await store.load();
    expect(store.list().map((saved) => saved.id)).toEqual(['a']);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain('forward 1 was skipped');
    expect(warnings[2]).toContain('used twice');
  });

  it('never saves over a file it could not read', async () => {
    const path = join(dir, 'forwards.json');
    await writeFile(path, '{ "version": 7 }');
    const store = new ForwardStore(dir);
    const { warnings } = await store.load();
    expect(warnings).toEqual([`${path} is not a Porthole forwards file.`]);
    await expect(
      store.save({
        id: 'x',
        nodeId: 'n',
        spec: { target, ports: [{ localPort: 0, remotePort: 80 }] },
        autoStart: false,
      }),
    ).rejects.toMatchObject({
      code: 'failed-precondition',
      hint: expect.stringContaining('Unsaved forwards still work') as string,
    });
    expect(await readFile(path, 'utf8')).toBe('{ "version": 7 }');
  });
});
