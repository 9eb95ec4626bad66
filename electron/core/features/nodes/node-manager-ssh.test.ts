import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppError } from '../../../../shared/errors';
import type {
  HostKeyPrompt,
  NodeStatus,
  PendingPrompt,
  SshNodeProfile,
} from '../../../../shared/model';
import { directDialer } from '../../base/streaming';
import { PromptBroker } from './index';
import { FakeNodeClient, fakeRuntime } from './testing/fake-node-client';
import { FakeSshConnection, fakeHostKey, fakeLogin } from './testing/fake-ssh-connection';
import { NodeManager, discoveredNodeId, type NodeManagerOptions } from './node-manager';
import type { OpenSshOptions } from './ssh';

interface Login {
  hostKey?: HostKeyPrompt;
  keyPath?: string;
  passphrase?: string;
}

describe('NodeManager with SSH nodes', () => {
  let dir: string;
  let broker: PromptBroker;
  let manager: NodeManager;
  let login: Login;
  let log: string[];
  let connections: FakeSshConnection[];
  let clients: FakeNodeClient[];
  let opened: { profile: SshNodeProfile; options: OpenSshOptions }[];
  let statuses: NodeStatus[][];

  const create = (overrides: Partial<NodeManagerOptions> = {}): NodeManager => {
    const created = new NodeManager({
      configDir: dir,
      discover: () =>
        Promise.resolve({
          endpoints: [
            {
              endpoint: 'unix:///run/local.sock',
              imageEndpoint: 'unix:///run/local.sock',
              source: 'environment',
              origin: 'CONTAINER_RUNTIME_ENDPOINT',
              probe: { state: 'ready', info: fakeRuntime },
            },
          ],
          warnings: [],
          sources: [],
        }),
      createClient: ({ endpoint, timeoutMs }) => {
        const client = new FakeNodeClient(endpoint);
        const dispose = client.dispose.bind(client);
        client.dispose = () => {
          log.push(`dispose client ${endpoint}`);
          dispose();
        };
        log.push(`client ${endpoint} ${timeoutMs ?? ''}`);
        clients.push(client);
        return client;
      },
      openSsh: async (profile, options) => {
        opened.push({ profile, options });
        await fakeLogin(profile.name, options, login);
        const connection = new FakeSshConnection(
          `unix:///tmp/ssh-${connections.length}/cri.sock`,
          log,
        );
        connections.push(connection);
        return connection;
      },
      prompts: broker,
      ...overrides,
    });
    created.onDidChange((delta) => statuses.push([...delta.upserted]));
    return created;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-ssh-nodes-'));
    broker = new PromptBroker();
    login = { hostKey: fakeHostKey };
    log = [];
    connections = [];
    clients = [];
    opened = [];
    statuses = [];
    manager = create();
  });

  afterEach(async () => {
    manager.dispose();
    broker.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const save = (extra: Partial<Omit<SshNodeProfile, 'kind'>> = {}): Promise<SshNodeProfile> =>
    manager.saveProfile({
      kind: 'ssh',
      name: 'node-1',
      host: '10.0.0.5',
      user: 'root',
      port: 2222,
      timeoutMs: 7000,
      ...extra,
    }) as Promise<SshNodeProfile>;

  /** The next open prompt, once the attempt has asked it. */
  const nextPrompt = async (): Promise<PendingPrompt> => {
    await vi.waitFor(() => expect(broker.list().length).toBeGreaterThan(0));
    return broker.list()[0]!;
  };

  const statusOf = async (nodeId: string): Promise<NodeStatus | undefined> =>
    (await manager.list()).find((status) => status.nodeId === nodeId);

  it('connects after the host key is trusted through the broker', async () => {
    const profile = await save();
    expect(await statusOf(profile.id)).toMatchObject({
      kind: 'ssh',
      endpoint: 'ssh://root@10.0.0.5:2222',
      state: 'disconnected',
      ssh: { state: 'disconnected', reason: 'not connected' },
    });

    const connecting = manager.connect(profile.id);
    const prompt = await nextPrompt();
    expect(prompt).toMatchObject({
      kind: 'host-key',
      nodeId: profile.id,
      nodeName: 'node-1',
      hostKey: fakeHostKey,
    });
    expect((await statusOf(profile.id))?.state).toBe('connecting');
    manager.answerPrompt(prompt.id, { kind: 'host-key', trust: true });

    const status = await connecting;
    expect(status).toMatchObject({
      kind: 'ssh',
      state: 'connected',
      runtime: fakeRuntime,
      ssh: { state: 'connected' },
      runtimeEndpoint: 'unix:///run/containerd/containerd.sock',
    });
    expect(opened[0]?.profile).toMatchObject({ host: '10.0.0.5', port: 2222 });
    // The CRI client talks to the SSH bridge, with the profile's deadline.
    expect(log).toEqual([`client ${connections[0]!.endpoint} 7000`]);
    expect(broker.list()).toEqual([]);
    expect(manager.dialer(profile.id)).toBe(connections[0]!.dialer);
    const local = discoveredNodeId('unix:///run/local.sock');
    await manager.connect(local);
    expect(manager.dialer(local)).toBe(directDialer);
  });

  it('asks again after a wrong passphrase, saying which attempt it is', async () => {
    login = { hostKey: fakeHostKey, keyPath: '/keys/locked', passphrase: 'right' };
    const profile = await save();
    const connecting = manager.connect(profile.id);
    manager.answerPrompt((await nextPrompt()).id, { kind: 'host-key', trust: true });

    await vi.waitFor(() => expect(broker.list()[0]?.kind).toBe('passphrase'));
    const first = broker.list()[0]!;
    expect(first).toMatchObject({ kind: 'passphrase', keyPath: '/keys/locked', attempt: 1 });
    manager.answerPrompt(first.id, { kind: 'passphrase', passphrase: 'wrong' });

    await vi.waitFor(() => expect(broker.list()[0]).toMatchObject({ attempt: 2 }));
    const second = broker.list()[0]!;
    expect(second).toMatchObject({ kind: 'passphrase', keyPath: '/keys/locked' });
    expect(second.id).not.toBe(first.id);
    manager.answerPrompt(second.id, { kind: 'passphrase', passphrase: 'right' });

    await expect(connecting).resolves.toMatchObject({ state: 'connected' });
    // No status ever carried a passphrase.
    expect(JSON.stringify(statuses)).not.toMatch(/wrong|right"/);
  });

  it('fails with a clear error when the host key is declined, and asks nothing more', async () => {
    const profile = await save();
    const connecting = manager.connect(profile.id);
    manager.answerPrompt((await nextPrompt()).id, { kind: 'host-key', trust: false });
    const error: AppError = await connecting.then(
      () => {
        throw new Error('expected a failure');
      },
      (failure: AppError) => failure,
    );
    expect(error).toMatchObject({
      code: 'cancelled',
      message: expect.stringMatching(
        /host key .* was not trusted; not connected to node-1/,
      ) as string,
      hint: expect.stringMatching(/fingerprint/) as string,
    });
    expect(broker.list()).toEqual([]);
    expect(await statusOf(profile.id)).toMatchObject({
      state: 'failed',
      error: { code: 'cancelled' },
      ssh: { state: 'disconnected', errorCode: 'cancelled' },
    });
    expect(clients).toEqual([]);
  });

  it('turns a question nobody answered into a deadline error', async () => {
    manager.dispose();
    broker.dispose();
    broker = new PromptBroker({ timeoutMs: 30 });
    manager = create();
    const profile = await save();
    await expect(manager.connect(profile.id)).rejects.toMatchObject({
      code: 'deadline-exceeded',
      message: expect.stringMatching(/No answer .* about node-1 within 1 second/) as string,
    });
    expect(broker.list()).toEqual([]);
  });

  it('withdraws the question when the node is disconnected while asking', async () => {
    const profile = await save();
    const connecting = manager.connect(profile.id);
    await nextPrompt();
    await manager.disconnect(profile.id);
    await expect(connecting).rejects.toMatchObject({ code: 'cancelled' });
    expect(broker.list()).toEqual([]);
    expect(opened[0]?.options.signal.aborted).toBe(true);
    // Called off by the user: not a failure.
    expect(await statusOf(profile.id)).toMatchObject({ state: 'disconnected' });
    expect((await statusOf(profile.id))?.error).toBeUndefined();
  });

  it("withdraws the question when the caller's call is cancelled", async () => {
    const profile = await save();
    const controller = new AbortController();
    const connecting = manager.connect(profile.id, controller.signal);
    await nextPrompt();
    controller.abort();
    await expect(connecting).rejects.toMatchObject({ code: 'cancelled' });
    expect(broker.list()).toEqual([]);
  });

  it('closes the SSH connection if the attempt is called off just after the login', async () => {
    login = {};
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    manager.dispose();
    manager = create({
      openSsh: async (profile, options) => {
        opened.push({ profile, options });
        await gate;
        const connection = new FakeSshConnection('unix:///tmp/late/cri.sock', log);
        connections.push(connection);
        return connection;
      },
    });
    const profile = await save();
    const connecting = manager.connect(profile.id);
    await vi.waitFor(() => expect(opened).toHaveLength(1));
    await manager.disconnect(profile.id);
    release();
    await expect(connecting).rejects.toMatchObject({ code: 'cancelled' });
    expect(connections[0]?.disposed).toBe(true);
    expect(clients).toEqual([]);
  });

  it('shows every SSH state change, and a connection SSH gave up on as failed', async () => {
    login = {};
    const profile = await save();
    await manager.connect(profile.id);
    const connection = connections[0]!;
    const resourceErrors: AppError[] = [];
    manager.watchResources(profile.id, {
      next: () => undefined,
      error: (error) => resourceErrors.push(error),
    });

    connection.setState({
      state: 'reconnecting',
      reason: 'connection reset',
      attempt: 1,
      nextAttemptAt: 5,
    });
    const reconnecting = statuses.at(-1)?.find((status) => status.nodeId === profile.id);
    expect(reconnecting).toMatchObject({
      state: 'reconnecting',
      runtime: fakeRuntime,
      ssh: { state: 'reconnecting', reason: 'connection reset', attempt: 1 },
    });

    connection.setState({ state: 'connected', since: 9 });
    expect(statuses.at(-1)?.find((status) => status.nodeId === profile.id)).toMatchObject({
      state: 'connected',
      ssh: { state: 'connected', since: 9 },
    });

    connection.setState({
      state: 'disconnected',
      reason: 'gave up after 6 attempts: connection refused',
      errorCode: 'unavailable',
    });
    const failed = statuses.at(-1)?.find((status) => status.nodeId === profile.id);
    expect(failed).toMatchObject({
      state: 'failed',
      error: {
        code: 'unavailable',
        message:
          'The SSH connection to node-1 was lost: gave up after 6 attempts: connection refused.',
      },
      ssh: { state: 'disconnected', errorCode: 'unavailable' },
    });
    expect(clients[0]?.disposed).toBe(true);
    expect(connection.disposed).toBe(true);
    expect(resourceErrors.map((error) => error.code)).toEqual(['unavailable']);
    expect(() => manager.client(profile.id)).toThrow(/not connected/);

    // Connecting again opens a new SSH connection.
    await expect(manager.connect(profile.id)).resolves.toMatchObject({ state: 'connected' });
    expect(connections).toHaveLength(2);
  });

  it('disposes the CRI client, then the SSH connection, on disconnect', async () => {
    login = {};
    const profile = await save();
    await manager.connect(profile.id);
    log.length = 0;
    await manager.disconnect(profile.id);
    expect(log).toEqual([
      `dispose client ${connections[0]!.endpoint}`,
      `dispose ssh ${connections[0]!.endpoint}`,
    ]);
    expect(await statusOf(profile.id)).toMatchObject({
      state: 'disconnected',
      ssh: { state: 'disconnected', reason: 'not connected' },
    });
    expect(() => manager.dialer(profile.id)).toThrow(/not connected/);
  });

  it('reconnects when the SSH target changes, not when only the name does', async () => {
    login = {};
    const profile = await save();
    await manager.connect(profile.id);
    await save({ id: profile.id, name: 'renamed' });
    expect(connections[0]?.disposed).toBe(false);
    await save({ id: profile.id, name: 'renamed', port: 2200 });
    expect(connections[0]?.disposed).toBe(true);
    expect((await statusOf(profile.id))?.state).toBe('disconnected');
  });

  it('refuses to connect SSH nodes without an SSH opener', async () => {
    manager.dispose();
    manager = create({ openSsh: undefined });
    const profile = await save();
    await expect(manager.connect(profile.id)).rejects.toMatchObject({ code: 'unimplemented' });
  });

  it('does not hold startup for an SSH node that auto-connects and asks a question', async () => {
    await writeFile(
      join(dir, 'nodes.json'),
      JSON.stringify({
        version: 1,
        profiles: [{ id: 'auto', kind: 'ssh', name: 'Auto', host: 'n1', autoConnect: true }],
      }),
    );
    manager.dispose();
    manager = create();
    const nodes = await manager.list();
    expect(nodes.find((status) => status.nodeId === 'auto')?.state).toBe('connecting');
    const prompt = await nextPrompt();
    expect(prompt).toMatchObject({ nodeId: 'auto', nodeName: 'Auto' });
    manager.answerPrompt(prompt.id, { kind: 'host-key', trust: true });
    await vi.waitFor(async () => expect((await statusOf('auto'))?.state).toBe('connected'));
  });

  it('withdraws the questions of a removed profile and of a disposed manager', async () => {
    const profile = await save();
    const first = manager.connect(profile.id);
    await nextPrompt();
    await manager.removeProfile(profile.id);
    await expect(first).rejects.toMatchObject({ code: 'cancelled' });
    expect(broker.list()).toEqual([]);

    const other = await save({ name: 'node-2' });
    const second = manager.connect(other.id);
    await nextPrompt();
    manager.dispose();
    await expect(second).rejects.toMatchObject({ code: 'cancelled' });
    expect(broker.list()).toEqual([]);
  });
});
