import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { ContainerDetail, TerminalEvent } from '../../../../shared/model';
import { SessionRegistry } from '../sessions';
import { FakeNodeClient } from '../nodes/testing/fake-node-client';
import { directDialer, type RemoteCommandOptions } from '../../base/streaming';
import { TerminalManager, type TerminalManagerOptions } from './manager';
import { FakeRemoteCommand, fakeContainerDetail as detail } from './testing/fake-remote-command';

describe('TerminalManager', () => {
  let client: FakeNodeClient;
  let registry: SessionRegistry;
  let manager: TerminalManager;
  let remotes: FakeRemoteCommand[];
  let requests: RemoteCommandOptions[];
  let containers: Map<string, ContainerDetail>;

  const create = (overrides: Partial<TerminalManagerOptions> = {}): TerminalManager =>
    new TerminalManager({
      nodes: { client: () => client, dialer: () => directDialer, nodeName: () => 'node-a' },
      sessions: registry,
      openRemoteCommand: (options) => {
        requests.push(options);
        const remote = new FakeRemoteCommand({ stderr: !options.tty });
        remotes.push(remote);
        return Promise.resolve(remote);
      },
      ...overrides,
    });

  beforeEach(() => {
    client = new FakeNodeClient('unix:///fake.sock');
    containers = new Map([['c1', detail('c1')]]);
    client.containerStatus = (id) => {
      const found = containers.get(id);
      return found !== undefined
        ? Promise.resolve(found)
        : Promise.reject(new AppError({ code: 'not-found', message: 'not found' }));
    };
    client.podStatus = () =>
      Promise.reject(new AppError({ code: 'unavailable', message: 'no pods here' }));
    client.execSync = () =>
      Promise.resolve({ stdout: Buffer.from('ash\n'), stderr: new Uint8Array(), exitCode: 0 });
    registry = new SessionRegistry();
    remotes = [];
    requests = [];
    manager = create();
  });

  afterEach(() => {
    manager.dispose();
    registry.dispose();
  });

  const open = (containerId = 'c1') =>
    manager.open({ nodeId: 'n', containerId, kind: 'exec', cols: 100, rows: 30 });

  it('opens the probed shell with a tty, stdin and the initial size', async () => {
    const info = await open();
    expect(info).toMatchObject({ command: ['ash'], tty: true, stdin: true, containerName: 'c-c1' });
    expect(requests[0]).toMatchObject({
      kind: 'exec',
      cmd: ['ash'],
      tty: true,
      stdin: true,
      stdout: true,
      stderr: false,
      transport: 'auto',
      initialSize: { cols: 100, rows: 30 },
    });
    expect(registry.list()[0]).toMatchObject({
      id: info.sessionId,
      kind: 'exec',
      state: 'active',
      detail: 'ash',
      nodeName: 'node-a',
      target: { description: 'c-c1', containerId: 'c1' },
      transport: 'spdy',
    });
  });

  it("attaches with the container's own tty and stdin settings", async () => {
    containers.set('c2', detail('c2', { info: { info: { config: {} } } }));
    const info = await manager.open({
      nodeId: 'n',
      containerId: 'c2',
      kind: 'attach',
      cols: 80,
      rows: 24,
    });
    expect(info).toMatchObject({ kind: 'attach', tty: false, stdin: false, command: [] });
    expect(requests[0]).toMatchObject({ tty: false, stdin: false, stdout: true, stderr: true });
  });

  it('refuses unknown and stopped containers clearly', async () => {
    await expect(open('nope')).rejects.toMatchObject({
      code: 'not-found',
      message: 'There is no container nope on node-a.',
    });
    containers.set('c3', detail('c3', { state: 'exited', exitCode: 1 }));
    await expect(open('c3')).rejects.toMatchObject({
      code: 'failed-precondition',
      message: 'The container c-c3 is not running (exited, exit code 1).',
    });
    expect(registry.list()).toHaveLength(0);
  });

  it('records a failed opening in the session monitor', async () => {
    manager = create({
      openRemoteCommand: () =>
        Promise.reject(new AppError({ code: 'unavailable', message: 'No route.' })),
    });
    await expect(open()).rejects.toMatchObject({ code: 'unavailable' });
    expect(registry.list()[0]).toMatchObject({ state: 'failed', stateReason: 'No route.' });
  });

  it('answers not-found for terminals it does not know', () => {
    expect(() => manager.ack('x', 1)).toThrow(AppError);
    expect(() => manager.resize('x', 1, 1)).toThrow(/no such terminal/);
    expect(() => manager.close('x')).toThrow(/no such terminal/);
    expect(() => manager.subscribe('x', { next: () => undefined, error: () => undefined })).toThrow(
      /no such terminal/,
    );
  });

  it('keeps an unseen exit for the next subscriber, then forgets the terminal', async () => {
    const info = await open();
    await remotes[0]?.produce(Buffer.from('last words'));
    remotes[0]?.exit(0);
    await sleep(20);
    const events: TerminalEvent[] = [];
    manager.subscribe(info.terminalId, { next: (e) => events.push(e), error: () => undefined });
    expect(events.map((e) => e.type)).toEqual(['output', 'exit']);
    expect(manager.size).toBe(0);
    // A pane's late acknowledgement, keystroke or close is harmless.
    manager.ack(info.terminalId, 10);
    manager.write(info.terminalId, Buffer.from('x'));
    manager.close(info.terminalId);
    expect(() => manager.write('never-was', Buffer.from('x'))).toThrow(
      'There is no such terminal.',
    );
  });

  it('bounds the unseen exits it keeps, by number and by time', async () => {
    manager = create({ maxUnseenExits: 2, unseenExitMs: 60 });
    const opened = [await open(), await open(), await open()];
    for (const remote of remotes) remote.exit(0);
    await sleep(20);
    expect(manager.find(opened[0]!.terminalId)).toBeUndefined();
    expect(manager.size).toBe(2);
    await sleep(80);
    expect(manager.size).toBe(0);
  });

  it('closes every terminal when disposed', async () => {
    await open();
    await open();
    manager.dispose();
    expect(remotes.every((s) => s.disposed)).toBe(true);
    expect(registry.list().map((s) => s.stateReason)).toEqual([
      'Porthole closed the terminal while shutting down.',
      'Porthole closed the terminal while shutting down.',
    ]);
  });
});
