import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { TerminalEvent, TerminalInfo } from '../../../../shared/model';
import { SessionRegistry } from '../sessions';
import type { ContainerFate } from './exit-reason';
import { defaultFlowLimits } from './output-flow';
import { Terminal } from './terminal';
import { FakeRemoteCommand } from './testing/fake-remote-command';

const KiB = 1024;

function info(overrides: Partial<TerminalInfo> = {}): TerminalInfo {
  return {
    terminalId: 't1',
    sessionId: 's1',
    nodeId: 'n',
    containerId: 'c',
    containerName: 'app',
    kind: 'exec',
    command: ['sh'],
    tty: true,
    stdin: true,
    transport: 'spdy',
    protocol: 'v4.channel.k8s.io',
    attempts: [],
    openedAt: 0,
    ...overrides,
  };
}

interface Setup {
  remote: FakeRemoteCommand;
  terminal: Terminal;
  registry: SessionRegistry;
  events: TerminalEvent[];
  subscribe: () => void;
  ended: Terminal[];
}

const registries: SessionRegistry[] = [];
afterEach(() => {
  for (const registry of registries.splice(0)) registry.dispose();
});

function setup(
  options: {
    info?: Partial<TerminalInfo>;
    remote?: FakeRemoteCommand;
    fate?: ContainerFate;
  } = {},
): Setup {
  const registry = new SessionRegistry();
  registries.push(registry);
  const remote = options.remote ?? new FakeRemoteCommand();
  const ended: Terminal[] = [];
  // The monitor's kill reaches the terminal once it exists.
  let kill = (): void => undefined;
  const handle = registry.register({
    kind: 'exec',
    nodeId: 'n',
    nodeName: 'node',
    target: { description: 'pod › app' },
    kill: () => kill(),
  });
  const terminal = new Terminal({
    info: info({ sessionId: handle.id, ...options.info }),
    remote,
    handle,
    containerFate: () => Promise.resolve(options.fate),
    onEnded: (t) => ended.push(t),
    onExitDelivered: () => undefined,
  });
  kill = () => terminal.close('monitor');
  const events: TerminalEvent[] = [];
  return {
    remote,
    terminal,
    registry,
    events,
    ended,
    subscribe: () => {
      terminal.subscribe({ next: (e) => events.push(e), error: () => undefined });
    },
  };
}

const received = (events: readonly TerminalEvent[]): number =>
  events.reduce((n, e) => n + (e.type === 'output' ? Buffer.from(e.data).length : 0), 0);
const text = (events: readonly TerminalEvent[]): string =>
  events.map((e) => (e.type === 'output' ? Buffer.from(e.data).toString() : '')).join('');

async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('Terminal', () => {
  it('holds the container back at the watermark until the pane acknowledges', async () => {
    const { remote, terminal, events, subscribe } = setup();
    subscribe();
    const chunk = 16 * KiB;
    const total = 4 * defaultFlowLimits.highWatermark;
    let produced = 0;
    const producer = (async () => {
      while (produced < total) {
        await remote.produce(Buffer.alloc(chunk, 'z'));
        produced += chunk;
      }
    })();
    await until(() => terminal.isReadingPaused);
    await sleep(50);
    // No acks: what reached the pane is at most the watermark plus one chunk, and the
    // producer is blocked by the stream's backpressure, not buffered in the core.
    expect(received(events)).toBeLessThanOrEqual(defaultFlowLimits.highWatermark + chunk);
    expect(terminal.unacknowledgedBytes).toBeLessThanOrEqual(
      defaultFlowLimits.highWatermark + chunk,
    );
    expect(remote.stdout.isPaused()).toBe(true);
    expect(produced).toBeLessThan(total);
    const stalledAt = produced;
    await sleep(50);
    expect(produced).toBe(stalledAt);
    // The pane draws and acknowledges as it goes: everything arrives.
    let acked = 0;
    while (acked < total) {
      await until(() => received(events) > acked);
      const now = received(events);
      terminal.ack(now - acked);
      acked = now;
    }
    await producer;
    expect(received(events)).toBe(total);
    expect(terminal.isReadingPaused).toBe(false);
  });

  it('buffers output until the first subscriber, then sends it before the exit', async () => {
    const { remote, registry, events, subscribe, terminal, ended } = setup();
    await remote.produce(Buffer.from('hello\r\n'));
    remote.exit(3);
    await until(() => ended.length === 1);
    expect(events).toHaveLength(0);
    expect(terminal.isExitDelivered).toBe(false);
    subscribe();
    expect(text(events)).toBe('hello\r\n');
    expect(events.at(-1)).toEqual({ type: 'exit', exitCode: 3, reason: 'Exited with code 3.' });
    expect(terminal.isExitDelivered).toBe(true);
    const [snapshot] = registry.list();
    expect(snapshot).toMatchObject({ state: 'ended', exitCode: 3, bytesIn: 7 });
  });

  it('sends input to stdin and counts it; resizes reach the PTY', async () => {
    const { remote, terminal, registry } = setup();
    const typed: Buffer[] = [];
    remote.stdin?.on('data', (chunk: Buffer) => typed.push(chunk));
    terminal.write(Buffer.from('echo hi\r'));
    terminal.write(Buffer.from([0x03]));
    terminal.resize(120, 40);
    await until(() => Buffer.concat(typed).length === 9);
    expect(Buffer.concat(typed).toString('latin1')).toBe('echo hi\r\x03');
    expect(remote.resizes).toEqual([[120, 40]]);
    expect(registry.list()[0]?.bytesOut).toBe(9);
  });

  it('ignores resizes without a tty and refuses input without stdin', () => {
    const { remote, terminal, events, subscribe } = setup({
      info: { kind: 'attach', tty: false, stdin: false },
      remote: new FakeRemoteCommand({ stdin: false, stderr: true }),
    });
    subscribe();
    terminal.resize(80, 24);
    expect(remote.resizes).toEqual([]);
    // Input is a notification: the refusal comes as a notice, and the session goes on.
    terminal.write(Buffer.from('x'));
    expect(events).toMatchObject([{ type: 'notice', error: { code: 'failed-precondition' } }]);
    expect(terminal.hasEnded).toBe(false);
  });

  it('keeps stdout and stderr apart without a tty', async () => {
    const remote = new FakeRemoteCommand({ stderr: true });
    const { events, subscribe } = setup({ info: { tty: false }, remote });
    subscribe();
    await remote.produce(Buffer.from('out'));
    await until(() => events.length === 1);
    await remote.produce(Buffer.from('err'), remote.stderr);
    await until(() => events.length === 2);
    expect(events.map((e) => (e.type === 'output' ? e.stream : e.type))).toEqual([
      'stdout',
      'stderr',
    ]);
  });

  it('is ended from the session monitor, and the pane is told so', () => {
    const { remote, registry, events, subscribe, terminal } = setup();
    subscribe();
    registry.kill(terminal.info.sessionId);
    expect(remote.disposed).toBe(true);
    expect(events.at(-1)).toEqual({
      type: 'exit',
      reason: 'The session was ended from the session monitor.',
    });
    expect(registry.list()[0]).toMatchObject({ state: 'ended', killable: false });
    // Late keystrokes have nowhere to go, and say nothing more after the exit.
    terminal.write(Buffer.from('x'));
    expect(events.at(-1)?.type).toBe('exit');
  });

  it('says the connection was lost when the transport drops', async () => {
    const { remote, registry, events, subscribe } = setup();
    subscribe();
    remote.drop(new AppError({ code: 'connection-lost', message: 'socket closed' }));
    await until(() => events.some((e) => e.type === 'exit'));
    const exit = events.at(-1);
    expect(exit).toMatchObject({
      type: 'exit',
      reason:
        'The connection to the node was lost. The process may still be running in the container.',
      error: { code: 'connection-lost' },
      mayStillRun: true,
    });
    expect(registry.list()[0]).toMatchObject({ state: 'failed' });
  });

  it('blames the container when it stopped under the session', async () => {
    const { remote, events, subscribe } = setup({ fate: { state: 'exited', exitCode: 137 } });
    subscribe();
    remote.drop(new AppError({ code: 'connection-lost', message: 'socket closed' }));
    await until(() => events.some((e) => e.type === 'exit'));
    expect(events.at(-1)).toEqual({
      type: 'exit',
      reason: 'The container was stopped (exit code 137); the session ended with it.',
      container: 'stopped',
    });
  });

  it('tells a subscriber that another one took over', () => {
    const { terminal, remote } = setup();
    const errors: string[] = [];
    terminal.subscribe({ next: () => undefined, error: (e) => errors.push(e.message) });
    terminal.subscribe({ next: () => undefined, error: () => undefined });
    expect(errors).toEqual(['This terminal is now shown by another subscriber.']);
    remote.exit(0);
  });
});
