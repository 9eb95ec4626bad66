/**
 * The forward's state machine against a fake runtime and a fake SPDY session: the paths the
 * lab can't produce quickly (giving up, permanent refusals, start timeouts). Traffic against
 * real runtimes is in test/integration/portforward.test.ts.
 */
import { connect } from 'node:net';
import { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { PodSandbox, PodSandboxDetail } from '../../../../shared/model';
import { UpgradeError } from '../../base/streaming';
import type { SpdyConnection, SpdyStream, SpdyUpgrade } from '../../base/streaming/spdy';
import type { ForwardTiming } from './timing';
import type { ForwardRuntime } from './resolve';
import { ForwardSupervisor } from './supervisor';

const timing: Partial<ForwardTiming> = {
  startTimeoutMs: 400,
  reconnectTimeoutMs: 400,
  backoffInitialMs: 20,
  backoffMaxMs: 50,
  healthIntervalMs: 30,
  connectionWaitMs: 2000,
  metricsIntervalMs: 10,
};

function pod(id: string, name = 'web', createdAt = 1): PodSandbox {
  return {
    id,
    name,
    namespace: 'ns',
    uid: `uid-${id}`,
    attempt: 0,
    state: 'ready',
    createdAt,
    labels: { app: name },
    annotations: {},
    runtimeHandler: '',
  };
}

class FakeRuntime implements ForwardRuntime {
  pods: PodSandbox[] = [];
  rpcs = 0;

  listPods: ForwardRuntime['listPods'] = (filter = {}) =>
    Promise.resolve(
      this.pods.filter(
        (p) =>
          (filter.state === undefined || p.state === filter.state) &&
          Object.entries(filter.labels ?? {}).every(([k, v]) => p.labels[k] === v),
      ),
    );

  podStatus: ForwardRuntime['podStatus'] = (id) => {
    const found = this.pods.find((p) => p.id === id);
    if (found === undefined) {
      return Promise.reject(new AppError({ code: 'not-found', message: `no sandbox ${id}` }));
    }
    const detail: PodSandboxDetail = { ...found, additionalIps: [], info: {} };
    return Promise.resolve(detail);
  };

  portForward: ForwardRuntime['portForward'] = () => {
    this.rpcs++;
    return Promise.resolve({ url: `http://127.0.0.1:1/portforward/token-${this.rpcs}` });
  };
}

/** A stream pair end: data streams echo what they get; error streams stay silent. */
class FakeStream extends Duplex implements SpdyStream {
  readonly replyHeaders = {};
  readonly remoteResetStatus = undefined;
  constructor(
    readonly id: number,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    super({ allowHalfOpen: true });
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.push(chunk);
    callback();
  }
  override _final(callback: () => void): void {
    this.push(null);
    callback();
  }
  reset(): void {
    this.destroy();
  }
}

class FakeSpdyConnection implements SpdyConnection {
  readonly protocol = 'portforward.k8s.io';
  closed = false;
  private nextId = 1;
  private readonly listeners = new Set<(error?: AppError) => void>();

  createStream(headers: Readonly<Record<string, string>>): Promise<SpdyStream> {
    if (this.closed) return Promise.reject(new AppError({ code: 'cancelled', message: 'closed' }));
    const stream = new FakeStream(this.nextId, headers);
    this.nextId += 2;
    return Promise.resolve(stream);
  }
  ping(): Promise<number> {
    return Promise.resolve(0);
  }
  goAway(): void {}
  onDidClose(listener: (error?: AppError) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  }
  /** The connection to the runtime dropped. */
  drop(): void {
    this.closed = true;
    for (const listener of this.listeners) {
      listener(new AppError({ code: 'connection-lost', message: 'gone' }));
    }
  }
  dispose(): void {
    this.closed = true;
  }
}

function fakeUpgrade(sessions: FakeSpdyConnection[]): SpdyUpgrade {
  return () => {
    const session = new FakeSpdyConnection();
    sessions.push(session);
    return Promise.resolve(session);
  };
}

function echo(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(text));
    let got = '';
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString();
      if (got.length >= text.length) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('end', () => reject(new Error(`ended after "${got}"`)));
  });
}

const supervisors: ForwardSupervisor[] = [];
afterEach(() => {
  for (const supervisor of supervisors.splice(0)) supervisor.dispose();
});

function setup(options: { upgradeSpdy?: SpdyUpgrade } = {}) {
  const runtime = new FakeRuntime();
  const sessions: FakeSpdyConnection[] = [];
  const supervisor = new ForwardSupervisor({
    runtime,
    timing,
    upgradeSpdy: options.upgradeSpdy ?? fakeUpgrade(sessions),
  });
  supervisors.push(supervisor);
  return { runtime, sessions, supervisor };
}

const target = { kind: 'pod', namespace: 'ns', name: 'web' } as const;
const ports = [{ localPort: 0, remotePort: 80 }];

describe('Forward', () => {
  it('goes active on SPDY and forwards bytes, with metrics', async () => {
    const { runtime, supervisor } = setup();
    runtime.pods = [pod('a')];
    const started = await supervisor.start({ target, ports });
    expect(started).toMatchObject({
      state: { name: 'active' },
      pod: { podSandboxId: 'a', namespace: 'ns', name: 'web' },
      transport: { kind: 'spdy', protocol: 'portforward.k8s.io' },
    });
    const port = started.ports[0]?.localPort ?? 0;
    expect(await echo(port, 'hello')).toBe('hello');
    await expect
      .poll(() => supervisor.get(started.id)?.metrics)
      .toMatchObject({ totalConnections: 1, openConnections: 0, bytesIn: 5, bytesOut: 5 });
  });

  it('re-establishes a dropped session on the same port', async () => {
    const { runtime, sessions, supervisor } = setup();
    runtime.pods = [pod('a')];
    const { id, ports: bound } = await supervisor.start({ target, ports });
    sessions[0]?.drop();
    expect(supervisor.get(id)?.state.name).not.toBe('active');
    const active = await supervisor.waitFor(id, ['active'], 2000);
    expect(sessions).toHaveLength(2);
    expect(active.ports).toEqual(bound);
    expect(await echo(bound[0]?.localPort ?? 0, 'again')).toBe('again');
  });

  it('follows the pod to a new sandbox with the same name', async () => {
    const { runtime, supervisor } = setup();
    runtime.pods = [pod('a')];
    const { id } = await supervisor.start({ target, ports });
    runtime.pods = [];
    const reconnecting = await supervisor.waitFor(id, ['reconnecting'], 2000);
    expect(reconnecting.state.reason).toContain('gone or not ready');
    runtime.pods = [pod('old', 'web', 1), pod('b', 'web', 2), pod('c', 'other', 3)];
    const active = await supervisor.waitFor(id, ['active'], 2000);
    expect(active.pod?.podSandboxId).toBe('b');
  });

  it('a sandbox target is then followed by name', async () => {
    const { runtime, supervisor } = setup();
    runtime.pods = [pod('a')];
    const { id } = await supervisor.start({
      target: { kind: 'sandbox', podSandboxId: 'a' },
      ports,
    });
    runtime.pods = [pod('b', 'web', 2)];
    await expect.poll(() => supervisor.get(id)?.pod?.podSandboxId, { timeout: 2000 }).toBe('b');
  });

  it('fails after reconnectTimeoutMs and closes its ports', async () => {
    const { runtime, supervisor } = setup();
    runtime.pods = [pod('a')];
    const { id, ports: bound } = await supervisor.start({ target, ports });
    runtime.pods = [];
    const failed = await supervisor.waitFor(id, ['failed'], 3000);
    expect(failed.state).toMatchObject({
      reason: expect.stringMatching(/^Gave up after 0 s: No ready pod named ns\/web/) as string,
      error: { code: 'not-found' },
    });
    expect(failed.ports).toEqual([]);
    await expect(echo(bound[0]?.localPort ?? 0, 'x')).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('refuses connections that waited longer than connectionWaitMs, saying why', async () => {
    const runtime = new FakeRuntime();
    const supervisor = new ForwardSupervisor({
      runtime,
      upgradeSpdy: fakeUpgrade([]),
      timing: { ...timing, reconnectTimeoutMs: 5000, connectionWaitMs: 100 },
    });
    supervisors.push(supervisor);
    runtime.pods = [pod('a')];
    const { id, ports: bound } = await supervisor.start({ target, ports });
    runtime.pods = [];
    await supervisor.waitFor(id, ['reconnecting'], 2000);
    await expect(echo(bound[0]?.localPort ?? 0, 'x')).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    const refused = supervisor.get(id)?.connections[0];
    expect(refused).toMatchObject({
      state: 'failed',
      error: {
        message: 'The connection was refused: the forward has no pod to send it to right now.',
        detail: expect.stringContaining('waited 100 ms') as string,
      },
    });
  });

  it('fails to start when no pod shows up in time, and keeps nothing', async () => {
    const { supervisor } = setup();
    await expect(supervisor.start({ target, ports })).rejects.toMatchObject({
      code: 'not-found',
      message: expect.stringContaining('No ready pod named ns/web') as string,
    });
    expect(supervisor.list()).toEqual([]);
  });

  it('falls back to WebSocket when SPDY is refused, and fails fast when SPDY is required', async () => {
    const refused: SpdyUpgrade = () =>
      Promise.reject(
        new UpgradeError({
          code: 'failed-precondition',
          message: 'The runtime supports none of the offered stream protocols.',
          status: 403,
          body: 'unable to negotiate protocol',
          offered: ['portforward.k8s.io'],
        }),
      );
    const { runtime, supervisor } = setup({ upgradeSpdy: refused });
    runtime.pods = [pod('a')];
    const auto = await supervisor.start({ target, ports });
    expect(auto.transport).toMatchObject({
      kind: 'websocket',
      fallbackReason: expect.stringContaining('none of the offered') as string,
    });
    const started = Date.now();
    await expect(supervisor.start({ target, ports, transport: 'spdy' })).rejects.toMatchObject({
      code: 'failed-precondition',
      status: 403,
    });
    // A 403 won't change with retries: no backoff, no waiting for startTimeoutMs.
    expect(Date.now() - started).toBeLessThan(300);
  });

  it('reports every state change and ends stopped', async () => {
    const { runtime, supervisor } = setup();
    runtime.pods = [pod('a')];
    const seen: string[] = [];
    supervisor.onDidChange((s) => {
      if (seen.at(-1) !== s.state.name) seen.push(s.state.name);
    });
    const { id } = await supervisor.start({ target, ports });
    expect(supervisor.stop(id)).toBe(true);
    expect(seen).toEqual(['starting', 'active', 'stopped']);
    expect(supervisor.get(id)).toBeUndefined();
  });
});
