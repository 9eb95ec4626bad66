/**
 * Stream servers that complete a valid upgrade (101) and then break the protocol: random
 * bytes instead of frames, a frame that never completes, data for streams that were never
 * opened. Each must end in a clear `protocol-error` at once (or, for a frame that stops
 * half-way, within the session's timeout), never a hang: an exec session's result, a
 * port-forward's local client (reset, with the violation named on the connection) and the
 * forward itself (failed, not active). The fakes are in test/fakes and the SPDY fake of
 * electron/core/base/streaming/spdy/testing; the other broken-server cases are in
 * exec-fakes.test.ts and portforward.test.ts.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ForwardSupervisor, type ForwardRuntime } from '../../electron/core/features/forwards';
import { openRemoteCommand } from '../../electron/core/base/streaming';
import type { RemoteCommand } from '../../electron/core/base/streaming/remotecommand';
import { fakePod } from '../../electron/core/features/nodes/testing/fake-node-client';
import { FakeSpdyServer } from '../../electron/core/base/streaming/spdy/testing/fake-spdy-server';
import type { ForwardSnapshot, ForwardTransportChoice } from '../../shared/model';
import { FakeStreamServer, type FakeStreamConnection } from '../fakes/ws-stream-server';
import { rejection } from '../support/errors';

/** Reproducible "random" bytes (mulberry32): each seed is its own garbage, every run. */
function garbage(seed: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    bytes[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return bytes;
}

const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function wsServer(
  onConnection: (connection: FakeStreamConnection) => void | Promise<void>,
  noHello = false,
): Promise<FakeStreamServer> {
  const server = await FakeStreamServer.start({
    protocols: ['v4.channel.k8s.io'],
    noHello,
    onConnection,
  });
  cleanups.push(() => server.close());
  return server;
}

/**
 * A SPDY stream server that answers the upgrade, and then, as the client opens its first
 * stream, `garbage` instead of a SYN_REPLY.
 */
async function spdyServer(protocols: readonly string[], garbage: Buffer): Promise<FakeSpdyServer> {
  const server = await FakeSpdyServer.start({
    protocols,
    autoReply: false,
    onConnection: (connection) => {
      connection.onStream = () => {
        connection.onStream = undefined;
        connection.sendRaw(garbage);
      };
    },
  });
  cleanups.push(() => server.close());
  return server;
}

async function exec(url: () => string, transport: 'websocket' | 'spdy', timeoutMs = 15_000) {
  const session: RemoteCommand = await openRemoteCommand({
    cri: {
      exec: () => Promise.resolve({ url: url() }),
      attach: () => Promise.resolve({ url: url() }),
    },
    kind: 'exec',
    containerId: 'fake',
    cmd: ['sh'],
    tty: true,
    stdin: true,
    stdout: true,
    stderr: false,
    transport,
    timeoutMs,
  });
  cleanups.push(() => session.dispose());
  session.stdout?.on('error', () => undefined);
  session.stdout?.resume();
  return session;
}

describe('exec over WebSocket, after a valid 101', () => {
  it.each(seeds)(
    'random bytes (seed %i) end the session with protocol-error at once',
    async (seed) => {
      const server = await wsServer(async (connection) => {
        // It never answers our close frame either: nothing may wait for it.
        connection.hijack();
        await connection.writeRaw(garbage(seed, 64 * 1024));
      });
      const started = Date.now();
      const session = await exec(() => server.url(), 'websocket');
      const error = await rejection(session.result);
      expect(error.code).toBe('protocol-error');
      expect(error.message).toMatch(/stream server broke the WebSocket protocol/);
      expect(Date.now() - started).toBeLessThan(2000);
    },
  );

  it('random bytes before any valid message do the same', async () => {
    const server = await wsServer(async (connection) => {
      connection.hijack();
      await connection.writeRaw(garbage(99, 4096));
    }, true);
    const started = Date.now();
    const error = await rejection((await exec(() => server.url(), 'websocket')).result);
    expect(error.code).toBe('protocol-error');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a frame that stops half-way ends with protocol-error within the session timeout', async () => {
    const server = await wsServer(async (connection) => {
      connection.hijack();
      // A binary frame that announces 65,535 bytes, then 3 of them, then nothing.
      await connection.writeRaw(Buffer.from([0x82, 0x7e, 0xff, 0xff, 1, 2, 3]));
    });
    const started = Date.now();
    const session = await exec(() => server.url(), 'websocket', 800);
    const error = await rejection(session.result);
    expect(error.code).toBe('protocol-error');
    expect(`${error.message} ${error.detail}`).toMatch(/incomplete WebSocket frame/i);
    expect(Date.now() - started).toBeLessThan(800 + 1500);
  });
});

describe('exec over SPDY, after a valid 101', () => {
  it.each(seeds)(
    'random bytes (seed %i) end the session with protocol-error at once',
    async (seed) => {
      const server = await spdyServer(['v4.channel.k8s.io'], garbage(seed, 64 * 1024));
      const started = Date.now();
      const error = await rejection(exec(() => server.url(), 'spdy'));
      expect(error.code).toBe('protocol-error');
      expect(Date.now() - started).toBeLessThan(2000);
    },
  );

  it('a frame that stops half-way ends with protocol-error within the session timeout', async () => {
    // Once every stream is open and answered: a DATA frame on stdout announcing 4 KiB,
    // then 2 bytes of it, then nothing.
    const server = await FakeSpdyServer.start({
      protocols: ['v4.channel.k8s.io'],
      autoReply: false,
      onConnection: (connection) => {
        const opened = new Map<string, number>();
        connection.onStream = (stream) => {
          opened.set(stream.headers.streamtype ?? '', stream.id);
          void stream.reply().then(() => {
            const stdout = opened.get('stdout');
            // resize is the last stream a tty exec opens.
            if (stream.headers.streamtype !== 'resize' || stdout === undefined) return;
            const header = Buffer.alloc(8);
            header.writeUInt32BE(stdout, 0);
            header.writeUInt32BE(4096, 4);
            connection.sendRaw(Buffer.concat([header, Buffer.from([1, 2])]));
          });
        };
      },
    });
    cleanups.push(() => server.close());
    const session = await exec(() => server.url(), 'spdy', 800);
    const started = Date.now();
    const error = await rejection(session.result);
    expect(error.code).toBe('protocol-error');
    expect(`${error.message} ${error.detail}`).toMatch(/incomplete SPDY frame/i);
    expect(Date.now() - started).toBeLessThan(800 + 1500);
  });
});

const pod = fakePod('pod-1', { name: 'web', namespace: 'demo' });

/** A runtime with one ready pod whose PortForward hands out the fake server's URLs. */
function runtimeFor(url: () => string): ForwardRuntime {
  return {
    listPods: () => Promise.resolve([pod]),
    podStatus: () => Promise.resolve({ ...pod, additionalIps: [], info: {} }),
    portForward: () => Promise.resolve({ url: url() }),
  };
}

/** Connects a local client, sends a request, and resolves with what happened to it. */
function client(port: number): Promise<{ bytes: number; error?: string; socket: Socket }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let bytes = 0;
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    socket.on('error', (cause: NodeJS.ErrnoException) => (error = cause.code ?? cause.message));
    socket.on('close', () => resolve({ bytes, ...(error !== undefined && { error }), socket }));
    socket.write('GET / HTTP/1.1\r\nHost: web\r\n\r\n');
  });
}

/** The forward once its connection's end is recorded (right after the client was reset). */
async function settled(supervisor: ForwardSupervisor): Promise<ForwardSnapshot> {
  await vi.waitFor(() => expect(supervisor.list()[0]?.connections[0]?.closedAt).toBeDefined());
  const snapshot = supervisor.list()[0];
  if (snapshot === undefined) throw new Error('the forward is gone');
  return snapshot;
}

async function forwardTo(
  url: () => string,
  transport: ForwardTransportChoice,
): Promise<{ supervisor: ForwardSupervisor; port: number }> {
  const supervisor = new ForwardSupervisor({
    runtime: runtimeFor(url),
    timing: { upgradeTimeoutMs: 2000, pairTimeoutMs: 2000 },
  });
  cleanups.push(() => supervisor.dispose());
  const started = await supervisor.start({
    target: { kind: 'pod', namespace: 'demo', name: 'web' },
    ports: [{ localPort: 0, remotePort: 8080 }],
    transport,
  });
  const port = started.ports[0]?.localPort ?? 0;
  return { supervisor, port };
}

/**
 * A local client through the forward: reset at once with nothing received; the connection
 * failed with the violation named; the forward failed, not active.
 */
async function expectFailedOnGarbage(
  forward: { supervisor: ForwardSupervisor; port: number },
  violation: RegExp,
): Promise<void> {
  const started = Date.now();
  const outcome = await client(forward.port);
  expect(outcome.bytes).toBe(0);
  expect(outcome.error).toBe('ECONNRESET');
  expect(Date.now() - started).toBeLessThan(2000);
  const snapshot = await settled(forward.supervisor);
  expect(snapshot.connections[0]).toMatchObject({
    state: 'failed',
    error: { code: 'protocol-error' },
  });
  expect(snapshot.connections[0]?.error?.message).toMatch(violation);
  expect(snapshot.state).toMatchObject({ name: 'failed', error: { code: 'protocol-error' } });
  expect(snapshot.state.reason).toMatch(/broke the port-forward protocol/);
}

describe('port-forward, after a valid 101', () => {
  it.each(seeds)(
    'SPDY: random bytes (seed %i) reset the local client, name the violation, and fail the forward',
    async (seed) => {
      const server = await spdyServer(['portforward.k8s.io'], garbage(seed, 4096));
      const forward = await forwardTo(() => server.url('/portforward/token'), 'spdy');
      await expectFailedOnGarbage(forward, /not valid SPDY|never opened/);
    },
  );

  it('WebSocket: random bytes reset the local client, name the violation, and fail the forward', async () => {
    const server = await wsServer(async (connection) => {
      connection.hijack();
      await connection.writeRaw(garbage(7, 4096));
    }, true);
    const forward = await forwardTo(() => server.url(), 'websocket');
    await expectFailedOnGarbage(
      forward,
      /broke the port-forward protocol: invalid WebSocket framing/,
    );
  });
});
