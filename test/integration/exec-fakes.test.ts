/**
 * The exec/attach engine against in-process fake stream servers: what real runtimes
 * won't do on demand (v5-only servers, malformed frames, garbage statuses, servers that
 * vanish or never answer, self-signed TLS) must end in clear AppErrors within bounded
 * time, never a hang or a crash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Duplex, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { CriClient } from '../../electron/core/base/cri';
import { directDialer, openRemoteCommand, type Dialer } from '../../electron/core/base/streaming';
import {
  openRemoteCommandWith,
  websocketTransport,
  type RemoteCommandOptions,
  type RemoteCommand,
} from '../../electron/core/base/streaming/remotecommand';
import { connectWebSocket } from '../../electron/core/base/streaming/websocket';
import { AppError } from '../../shared/errors';
import {
  CHANNEL,
  FakeStreamServer,
  statusJson,
  type FakeStreamConnection,
} from '../fakes/ws-stream-server';
import { SilentSpdyServer } from '../fakes/spdy-silent-server';
import { hasOpenssl, selfSignedCertificate } from '../fakes/tls';
import { RstStatus } from '../../electron/core/base/streaming/spdy';
import {
  FakeSpdyServer,
  type FakeServerStream,
  type FakeSpdyServerConnection,
} from '../../electron/core/base/streaming/spdy/testing/fake-spdy-server';
import { rejection } from '../support/errors';

type Cri = Pick<CriClient, 'exec' | 'attach'>;

/** A CRI whose Exec/Attach hand out URLs from `next`; counts the calls. */
function fakeCri(next: () => string): Cri & { calls: number } {
  const cri = {
    calls: 0,
    exec: () => {
      cri.calls += 1;
      return Promise.resolve({ url: next() });
    },
    attach: () => {
      cri.calls += 1;
      return Promise.resolve({ url: next() });
    },
  };
  return cri;
}

const servers: FakeStreamServer[] = [];
const sessions: RemoteCommand[] = [];

async function serve(
  protocols: readonly string[],
  onConnection: (connection: FakeStreamConnection) => void | Promise<void>,
  extra: { tls?: { key: string; cert: string } } = {},
): Promise<FakeStreamServer> {
  const server = await FakeStreamServer.start({ protocols, onConnection, ...extra });
  servers.push(server);
  return server;
}

function options(cri: Cri, overrides: Partial<RemoteCommandOptions> = {}): RemoteCommandOptions {
  return {
    cri,
    kind: 'exec',
    containerId: 'fake',
    cmd: ['cat'],
    tty: false,
    stdin: false,
    stdout: true,
    stderr: false,
    transport: 'websocket',
    timeoutMs: 3000,
    ...overrides,
  };
}

async function open(opts: RemoteCommandOptions): Promise<RemoteCommand> {
  const session = await openRemoteCommand(opts);
  sessions.push(session);
  return session;
}

async function readAll(readable: NodeJS.ReadableStream | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  if (readable === undefined) return Buffer.alloc(0);
  for await (const chunk of readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Echoes stdin to stdout; on v5 CLOSE of stdin, sends success and closes, like `cat`. */
function catServer(connection: FakeStreamConnection): void {
  connection.onMessage((channel, payload) => {
    if (channel === CHANNEL.stdin) void connection.send(CHANNEL.stdout, payload);
    if (channel === CHANNEL.close && payload[0] === CHANNEL.stdin) {
      void connection.sendStatus(statusJson(0)).then(() => connection.close());
    }
  });
}

afterEach(async () => {
  for (const session of sessions.splice(0)) session.dispose();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('negotiation', () => {
  it('offers v5 down to v1 in one header and speaks v5 with a v5-only server', async () => {
    const server = await serve(['v5.channel.k8s.io'], catServer);
    const session = await open(
      options(
        fakeCri(() => server.url()),
        { stdin: true },
      ),
    );
    expect(session.negotiated).toEqual({ transport: 'websocket', protocol: 'v5.channel.k8s.io' });
    expect(server.requests[0]?.protocolHeader).toBe(
      'v5.channel.k8s.io,v4.channel.k8s.io,v4.base64.channel.k8s.io,channel.k8s.io,base64.channel.k8s.io',
    );
    expect(session.capabilities).toEqual({ resize: false, closeStdin: true });
    const input = randomBytes(3 * 1024 * 1024 + 17);
    const output = readAll(session.stdout);
    session.stdin?.end(input);
    expect((await output).equals(input)).toBe(true);
    const result = await session.result;
    expect(result).toMatchObject({ exitCode: 0, reason: 'Success' });
    expect(result.attempts).toEqual([
      expect.objectContaining({ transport: 'websocket', outcome: 'ok' }),
    ]);
  });

  it('half-closes stdin with v5 CLOSE, then reads the status', async () => {
    let closedAt = -1;
    let received = 0;
    const server = await serve(['v5.channel.k8s.io'], (connection) => {
      connection.onMessage((channel, payload) => {
        if (channel === CHANNEL.stdin) received += payload.length;
        if (channel === CHANNEL.close) {
          closedAt = received;
          // Output continues after the half-close, as `wc -c` would answer.
          void connection
            .send(CHANNEL.stdout, `${received}\n`)
            .then(() => connection.sendStatus(statusJson(0)))
            .then(() => connection.close());
        }
      });
    });
    const session = await open(
      options(
        fakeCri(() => server.url()),
        { stdin: true },
      ),
    );
    session.stdin?.write(Buffer.alloc(1000));
    session.closeStdin();
    expect((await readAll(session.stdout)).toString()).toBe('1000\n');
    expect(closedAt).toBe(1000);
    expect((await session.result).exitCode).toBe(0);
  });

  it('auto takes WebSocket v5 for piped stdin when SPDY is not there', async () => {
    const server = await serve(['v5.channel.k8s.io'], catServer);
    const cri = fakeCri(() => server.url());
    const session = await open(options(cri, { stdin: true, transport: 'auto' }));
    expect(session.negotiated.protocol).toBe('v5.channel.k8s.io');
    session.closeStdin();
    await session.result;
    expect(session.attempts.at(-1)).toMatchObject({ transport: 'websocket', outcome: 'ok' });
  });

  it('speaks the base64 variant', async () => {
    const server = await serve(['v4.base64.channel.k8s.io'], (connection) => {
      connection.onMessage((channel, payload) => {
        if (channel !== CHANNEL.stdin) return;
        void connection
          .send(CHANNEL.stdout, payload)
          .then(() => connection.send(CHANNEL.stderr, 'warn'))
          .then(() => connection.sendStatus(statusJson(3)))
          .then(() => connection.close());
      });
    });
    const session = await open(
      options(
        fakeCri(() => server.url()),
        { stdin: true, stderr: true },
      ),
    );
    expect(session.negotiated.protocol).toBe('v4.base64.channel.k8s.io');
    const [stdout, stderr] = [readAll(session.stdout), readAll(session.stderr)];
    session.stdin?.write(Buffer.from('hello\u0000\u00ff', 'latin1'));
    expect((await stdout).toString('latin1')).toBe('hello\u0000ÿ');
    expect((await stderr).toString()).toBe('warn');
    expect((await session.result).exitCode).toBe(3);
  });

  it('refuses to end stdin on v4, honestly', async () => {
    const server = await serve(['v4.channel.k8s.io'], catServer);
    const session = await open(
      options(
        fakeCri(() => server.url()),
        { stdin: true },
      ),
    );
    expect(session.negotiated.protocol).toBe('v4.channel.k8s.io');
    expect(session.capabilities.closeStdin).toBe(false);
    let error: unknown;
    try {
      session.closeStdin();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('failed-precondition');
    expect((error as AppError).message).toMatch(/no half-close/);
    // Ending the stream reports the same error on the stream instead of hanging silently.
    const streamError = new Promise((resolve) => session.stdin?.once('error', resolve));
    session.stdin?.end('x');
    expect(await streamError).toMatchObject({ code: 'failed-precondition' });
  });

  it('auto refuses WebSocket v4 for piped stdin and says why', async () => {
    const server = await serve(['v4.channel.k8s.io'], catServer);
    const cri = fakeCri(() => server.url());
    const error = await rejection(open(options(cri, { stdin: true, transport: 'auto' })));
    expect(error.code).toBe('failed-precondition');
    expect(error.message).toMatch(/cannot end stdin/);
    expect(error.detail).toMatch(/attempts: spdy: .*; websocket: refused/);
  });

  it('reports a 403 (no common protocol) as a refused upgrade', async () => {
    const server = await serve(['v9.channel.k8s.io'], catServer);
    const error = await rejection(open(options(fakeCri(() => server.url()))));
    expect(error).toMatchObject({ code: 'failed-precondition', status: 403 });
    expect(error.message).toMatch(/supports none of the offered WebSocket protocols/);
  });

  it('reports a used URL as not-found (404), and a fallback calls the RPC again', async () => {
    const server = await serve(
      ['v4.channel.k8s.io'],
      (c) => void c.sendStatus(statusJson(0)).then(() => c.close()),
    );
    const used = server.url();
    const first = await connectWebSocket({ url: used, protocols: ['v4.channel.k8s.io'] });
    first.terminate();
    const again = await rejection(
      connectWebSocket({ url: used, protocols: ['v4.channel.k8s.io'] }),
    );
    expect(again).toMatchObject({ code: 'not-found', status: 404 });

    // The primary gets the used URL; the fallback must not retry it but ask for a new one.
    const urls = [used];
    const cri = fakeCri(() => urls.shift() ?? server.url());
    const session = await openRemoteCommandWith(
      {
        spdy: { ...websocketTransport(), transport: 'spdy' },
        websocket: websocketTransport(),
      },
      options(cri, { transport: 'auto' }),
    );
    sessions.push(session);
    expect(cri.calls).toBe(2);
    expect(session.attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['refused', 404],
      ['ok', undefined],
    ]);
    await session.result;
  });
});

describe('faults', () => {
  it('rejects a garbage status with a protocol error', async () => {
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      await c.send(CHANNEL.stdout, 'out');
      await c.sendStatus('{"status": Success');
      c.close();
    });
    const session = await open(options(fakeCri(() => server.url())));
    expect((await readAll(session.stdout)).toString()).toBe('out');
    const error = await rejection(session.result);
    expect(error.code).toBe('protocol-error');
    expect(error.message).toMatch(/unreadable command status/);
  });

  it.each([
    ['an empty message', (c: FakeStreamConnection) => c.sendRaw(Buffer.alloc(0), true)],
    ['a text frame', (c: FakeStreamConnection) => c.sendRaw('1hello', false)],
  ])('fails on a malformed frame (%s)', async (_name, misbehave) => {
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      await c.send(CHANNEL.stdout, 'ok');
      await misbehave(c);
    });
    const session = await open(options(fakeCri(() => server.url())));
    const error = await rejection(session.result);
    expect(error.code).toBe('protocol-error');
    expect(error.message).toMatch(/malformed WebSocket message/);
    await expect(readAll(session.stdout)).rejects.toMatchObject({ code: 'protocol-error' });
  });

  it('ignores channels it does not know', async () => {
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      await c.send(7, 'ignored');
      await c.send(CHANNEL.stdout, 'kept');
      await c.sendStatus(statusJson(0));
      c.close();
    });
    const session = await open(options(fakeCri(() => server.url())));
    expect((await readAll(session.stdout)).toString()).toBe('kept');
    expect((await session.result).exitCode).toBe(0);
  });

  it('treats a v4 end without status as abnormal', async () => {
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      await c.send(CHANNEL.stdout, 'partial');
      c.close();
    });
    const session = await open(options(fakeCri(() => server.url())));
    const error = await rejection(session.result);
    expect(error.code).toBe('connection-lost');
    expect(error.message).toMatch(/without a command status/);
  });

  it('reports a server that dies mid-stream as connection-lost', async () => {
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      await c.send(CHANNEL.stdout, Buffer.alloc(64 * 1024));
      server.killAll();
    });
    const session = await open(options(fakeCri(() => server.url())));
    const started = Date.now();
    const error = await rejection(session.result);
    expect(error.code).toBe('connection-lost');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('settles even when the server never closes after the status', async () => {
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      await c.sendStatus(statusJson(0));
    });
    const session = await open(options(fakeCri(() => server.url())));
    const started = Date.now();
    expect((await session.result).exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('times out an upgrade the server never answers', async () => {
    const silent: Server = createServer((socket: Socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as { port: number };
      const started = Date.now();
      const error = await rejection(
        open(
          options(
            fakeCri(() => `http://127.0.0.1:${port}/exec/x`),
            { timeoutMs: 500 },
          ),
        ),
      );
      expect(error.code).toBe('deadline-exceeded');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      silent.close();
    }
  });

  it('cancels setup on abort, and a disposed session rejects as cancelled', async () => {
    const server = await serve(['v4.channel.k8s.io'], () => undefined);
    const controller = new AbortController();
    controller.abort();
    const aborted = await rejection(
      open(
        options(
          fakeCri(() => server.url()),
          { signal: controller.signal },
        ),
      ),
    );
    expect(aborted.code).toBe('cancelled');

    const session = await open(options(fakeCri(() => server.url())));
    session.dispose();
    expect((await rejection(session.result)).code).toBe('cancelled');
  });

  it('answers a refused connection with unavailable', async () => {
    const server = await serve(['v4.channel.k8s.io'], () => undefined);
    const url = server.url();
    await server.close();
    const error = await rejection(open(options(fakeCri(() => url))));
    expect(error.code).toBe('unavailable');
  });
});

describe('flow control', () => {
  it('keeps a slow reader bounded: the server is blocked, memory stays flat', async () => {
    const total = 100 * 1024 * 1024;
    const chunk = Buffer.alloc(32 * 1024, 0x61);
    let sent = 0;
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      // Send as the real server does: one 32 KiB message at a time, each awaited.
      while (sent < total && c.ws.readyState === c.ws.OPEN) {
        await c.send(CHANNEL.stdout, chunk);
        sent += chunk.length;
      }
    });
    const session = await open(options(fakeCri(() => server.url())));
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 50);
    let consumed = 0;
    const started = Date.now();
    const slowReader = new Writable({
      highWaterMark: 64 * 1024,
      write(data: Buffer, _encoding, callback) {
        consumed += data.length;
        // ~1 MiB/s
        setTimeout(callback, (data.length / (1024 * 1024)) * 1000);
      },
    });
    const reading = pipeline(session.stdout!, slowReader).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    clearInterval(sampler);
    const elapsed = (Date.now() - started) / 1000;
    session.dispose();
    await reading;
    expect(consumed).toBeLessThan(elapsed * 1.5 * 1024 * 1024 + 1024 * 1024);
    // Everything the server got onto the wire beyond what was read sits in bounded
    // buffers (our channel high-water mark, socket buffers): it is blocked, not done.
    expect(sent).toBeLessThan(total);
    expect(sent - consumed).toBeLessThan(24 * 1024 * 1024);
    expect(rssPeak - rssBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('splits large stdin writes into messages far below the 32 MiB limit', async () => {
    let largest = 0;
    let received = 0;
    const hash = createHash('sha256');
    const server = await serve(['v5.channel.k8s.io'], (c) => {
      c.ws.on('message', (data: Buffer) => {
        largest = Math.max(largest, data.length);
      });
      c.onMessage((channel, payload) => {
        if (channel === CHANNEL.stdin) {
          received += payload.length;
          hash.update(payload);
        }
        if (channel === CHANNEL.close) void c.sendStatus(statusJson(0)).then(() => c.close());
      });
    });
    const session = await open(
      options(
        fakeCri(() => server.url()),
        { stdin: true },
      ),
    );
    const input = randomBytes(40 * 1024 * 1024);
    session.stdin?.end(input);
    await session.result;
    expect(received).toBe(input.length);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(input).digest('hex'));
    expect(largest).toBeLessThanOrEqual(1024 * 1024 + 1);
  });
});

describe('terminal', () => {
  it('sends the initial size at once and ignores zero sizes', async () => {
    const sizes: string[] = [];
    const server = await serve(['v4.channel.k8s.io'], (c) => {
      c.onMessage((channel, payload) => {
        if (channel === CHANNEL.resize) sizes.push(payload.toString());
      });
    });
    const session = await open(
      options(
        fakeCri(() => server.url()),
        {
          tty: true,
          stdin: true,
          initialSize: { cols: 80, rows: 24 },
        },
      ),
    );
    expect(session.capabilities).toEqual({ resize: true, closeStdin: false });
    session.resize(0, 10);
    session.resize(120, 40);
    await expect
      .poll(() => sizes)
      .toEqual(['{"Width":80,"Height":24}', '{"Width":120,"Height":40}']);
  });
});

describe('dialers and TLS', () => {
  it('works over a dialer that returns a plain Duplex (an SSH channel)', async () => {
    const server = await serve(['v4.channel.k8s.io'], async (c) => {
      await c.send(CHANNEL.stdout, 'through the tunnel');
      await c.sendStatus(statusJson(0));
      c.close();
    });
    let dialled = '';
    const tunnel: Dialer = async (host, port, signal) => {
      dialled = `${host}:${port}`;
      const socket = await directDialer(host, port, signal);
      // Only the Duplex surface: no setNoDelay/setTimeout, like ssh2's channels.
      const channel = new Duplex({
        read: () => socket.resume(),
        write: (chunk, _encoding, callback) => socket.write(chunk, callback),
        final: (callback) => socket.end(callback),
        destroy: (error, callback) => {
          socket.destroy();
          callback(error);
        },
      });
      socket.on('data', (data) => {
        if (!channel.push(data)) socket.pause();
      });
      socket.on('end', () => channel.push(null));
      socket.on('error', (error) => channel.destroy(error));
      return channel;
    };
    const session = await open(
      options(
        fakeCri(() => server.url()),
        { dialer: tunnel },
      ),
    );
    expect((await readAll(session.stdout)).toString()).toBe('through the tunnel');
    expect((await session.result).exitCode).toBe(0);
    expect(dialled).toBe(`127.0.0.1:${server.port}`);
  });

  describe.skipIf(!hasOpenssl())('https stream URL with a self-signed certificate', () => {
    const certificate = hasOpenssl() ? selfSignedCertificate() : { key: '', cert: '' };
    const stranger = hasOpenssl() ? selfSignedCertificate() : { key: '', cert: '' };
    const spdyServersForTls: FakeSpdyServer[] = [];
    afterEach(async () => {
      await Promise.all(spdyServersForTls.splice(0).map((server) => server.close()));
    });
    const greet = async (c: FakeStreamConnection): Promise<void> => {
      await c.send(CHANNEL.stdout, 'secure');
      await c.sendStatus(statusJson(0));
      c.close();
    };

    it('is refused by default', async () => {
      const server = await serve(['v4.channel.k8s.io'], greet, { tls: certificate });
      const error = await rejection(open(options(fakeCri(() => server.url()))));
      expect(error.code).toBe('permission-denied');
      expect(error.message).toMatch(/certificate that is not trusted/);
      expect(error.detail).toMatch(/self[- ]signed/i);
    });

    it('is refused with a CA that does not match', async () => {
      const server = await serve(['v4.channel.k8s.io'], greet, { tls: certificate });
      const error = await rejection(
        open(
          options(
            fakeCri(() => server.url()),
            {
              tls: { rejectUnauthorized: true, ca: stranger.cert },
            },
          ),
        ),
      );
      expect(error.code).toBe('permission-denied');
    });

    it('is refused by default over SPDY too, and accepted when trusted', async () => {
      const server = await FakeSpdyServer.start({ tls: certificate });
      spdyServersForTls.push(server);
      const cri = fakeCri(() => server.url());
      const refused = await rejection(open(options(cri, { transport: 'spdy' })));
      expect(refused.code).toBe('permission-denied');
      const session = await open(
        options(cri, {
          transport: 'spdy',
          tls: { rejectUnauthorized: true, ca: certificate.cert },
        }),
      );
      expect(session.negotiated).toEqual({ transport: 'spdy', protocol: 'v4.channel.k8s.io' });
    });

    it.each([
      ['verification is off', { rejectUnauthorized: false }],
      ['its certificate is trusted', { rejectUnauthorized: true, ca: certificate.cert }],
    ])('is accepted when %s', async (_name, tls) => {
      const server = await serve(['v4.channel.k8s.io'], greet, { tls: certificate });
      const session = await open(
        options(
          fakeCri(() => server.url()),
          { tls },
        ),
      );
      expect((await readAll(session.stdout)).toString()).toBe('secure');
      expect((await session.result).exitCode).toBe(0);
    });
  });
});

describe('SPDY', () => {
  const spdyServers: FakeSpdyServer[] = [];
  afterEach(async () => {
    await Promise.all(spdyServers.splice(0).map((server) => server.close()));
  });

  type SpdyScript = (
    streams: Map<string, FakeServerStream>,
    connection: FakeSpdyServerConnection,
  ) => void;

  /**
   * A spdystream-like server. `connect` opens a session through it and then runs `script`
   * on the server's side: the client's open resolves once every stream it wanted was
   * answered, so the script sees them all (however long the round trips take).
   */
  async function spdyServe(
    script: SpdyScript,
    protocols?: readonly string[],
  ): Promise<{
    server: FakeSpdyServer;
    opened: string[][];
    connect: (extra?: Partial<RemoteCommandOptions>) => Promise<RemoteCommand>;
  }> {
    const opened: string[][] = [];
    const connections: [Map<string, FakeServerStream>, FakeSpdyServerConnection][] = [];
    const server = await FakeSpdyServer.start({
      ...(protocols !== undefined && { protocols }),
      autoReply: false,
      onConnection: (connection) => {
        const streams = new Map<string, FakeServerStream>();
        const types: string[] = [];
        opened.push(types);
        connections.push([streams, connection]);
        connection.onStream = (stream) => {
          const type = stream.headers.streamtype ?? '?';
          types.push(type);
          streams.set(type, stream);
          stream.incoming.resume();
          void stream.reply();
        };
      },
    });
    spdyServers.push(server);
    const connect = async (extra: Partial<RemoteCommandOptions> = {}) => {
      const session = await open(spdyOptions(server, extra));
      for (const [streams, connection] of connections.splice(0)) script(streams, connection);
      return session;
    };
    return { server, opened, connect };
  }

  /** The runtime's teardown: status without FIN, RST CANCEL on every stream, GOAWAY, close. */
  async function finish(
    streams: Map<string, FakeServerStream>,
    connection: FakeSpdyServerConnection,
    status: string,
  ): Promise<void> {
    await streams.get('stdout')?.write('', true);
    await streams.get('error')?.write(status);
    for (const stream of streams.values()) stream.reset(RstStatus.Cancel);
    connection.goAway();
    connection.socket.end();
  }

  const spdyOptions = (server: FakeSpdyServer, extra: Partial<RemoteCommandOptions> = {}) =>
    options(
      fakeCri(() => server.url()),
      { transport: 'spdy', ...extra },
    );

  it.each([
    ['stdout only', {}, ['error', 'stdout']],
    [
      'stdin, stdout, stderr',
      { stdin: true, stderr: true },
      ['error', 'stdin', 'stdout', 'stderr'],
    ],
    ['a terminal', { tty: true, stdin: true }, ['error', 'stdin', 'stdout', 'resize']],
  ])('opens exactly the streams the flags imply (%s)', async (_name, flags, expected) => {
    const { connect, opened } = await spdyServe((streams, c) => {
      void finish(streams, c, statusJson(0));
    });
    const session = await connect(flags);
    expect(session.negotiated).toEqual({ transport: 'spdy', protocol: 'v4.channel.k8s.io' });
    await session.result;
    expect(opened).toEqual([expected]);
  });

  it('opens no resize stream before v3, and says resize is unsupported', async () => {
    const { connect, opened } = await spdyServe(
      (streams, c) => void finish(streams, c, ''),
      ['v2.channel.k8s.io'],
    );
    const session = await connect({ tty: true, stdin: true });
    expect(session.negotiated.protocol).toBe('v2.channel.k8s.io');
    expect(session.capabilities.resize).toBe(false);
    session.resize(80, 24); // a no-op, not an error
    expect(await session.result).toMatchObject({ reason: 'Success' });
    expect(opened).toEqual([['error', 'stdin', 'stdout']]);
  });

  it('reads the exit code from the status on the error stream', async () => {
    const { connect } = await spdyServe((streams, c) => {
      void streams
        .get('stdout')!
        .write('partial output')
        .then(() => finish(streams, c, statusJson(3)));
    });
    const session = await connect();
    expect((await readAll(session.stdout)).toString()).toBe('partial output');
    expect(await session.result).toMatchObject({ exitCode: 3, reason: 'NonZeroExitCode' });
  });

  it('rejects a garbage status with a protocol error', async () => {
    const { connect } = await spdyServe((streams, c) => void finish(streams, c, '{"status":'));
    const session = await connect();
    expect((await rejection(session.result)).code).toBe('protocol-error');
  });

  it('treats a v4 end without status as abnormal', async () => {
    const { connect } = await spdyServe((streams, c) => void finish(streams, c, ''));
    const session = await connect();
    const error = await rejection(session.result);
    expect(error.code).toBe('connection-lost');
    expect(error.message).toMatch(/without a command status/);
  });

  it('reports a server that dies mid-stream as connection-lost', async () => {
    const { server, connect } = await spdyServe((streams) => {
      void streams
        .get('stdout')!
        .write(Buffer.alloc(64 * 1024))
        .then(() => server.close());
    });
    const session = await connect();
    const started = Date.now();
    expect((await rejection(session.result)).code).toBe('connection-lost');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('times out when the server never answers a SYN_STREAM', async () => {
    const silent = await SilentSpdyServer.start();
    try {
      const started = Date.now();
      const error = await rejection(
        open(
          options(
            fakeCri(() => silent.url()),
            { transport: 'spdy', timeoutMs: 800 },
          ),
        ),
      );
      expect(error.code).toBe('deadline-exceeded');
      expect(error.message).toMatch(/did not open the error stream/);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(silent.received).toBeGreaterThan(0); // the SYN_STREAM went out
    } finally {
      await silent.close();
    }
  });

  it('auto falls back to WebSocket, with a new RPC, when SPDY is refused', async () => {
    // A WebSocket-only server (like CRI-O's conmon-rs): the SPDY upgrade gets a 403.
    const server = await serve(['v5.channel.k8s.io'], catServer);
    const cri = fakeCri(() => server.url());
    const session = await open(options(cri, { transport: 'auto', stdin: true }));
    expect(cri.calls).toBe(2);
    expect(session.negotiated).toEqual({ transport: 'websocket', protocol: 'v5.channel.k8s.io' });
    expect(session.attempts.map((a) => [a.transport, a.outcome, a.status])).toEqual([
      ['spdy', 'refused', 403],
      ['websocket', 'ok', undefined],
    ]);
    session.closeStdin();
    expect((await session.result).exitCode).toBe(0);
  });

  it('does not fall back when the server cannot be reached', async () => {
    const server = await serve(['v4.channel.k8s.io'], catServer);
    const url = server.url();
    await server.close();
    const cri = fakeCri(() => url);
    const error = await rejection(open(options(cri, { transport: 'auto' })));
    expect(error.code).toBe('unavailable');
    expect(cri.calls).toBe(1);
  });

  it('keeps a slow reader bounded over SPDY too', async () => {
    const chunk = Buffer.alloc(32 * 1024, 0x62);
    const total = 100 * 1024 * 1024;
    let connection: FakeSpdyServerConnection | undefined;
    const { connect } = await spdyServe((streams, c) => {
      connection = c;
      void (async () => {
        const stdout = streams.get('stdout')!;
        for (let sent = 0; sent < total && !c.socket.destroyed; sent += chunk.length) {
          await stdout.write(chunk).catch(() => undefined);
        }
      })();
    });
    const session = await connect();
    const rssBefore = process.memoryUsage().rss;
    let consumed = 0;
    const reading = pipeline(
      session.stdout!,
      new Writable({
        highWaterMark: 64 * 1024,
        write(data: Buffer, _encoding, callback) {
          consumed += data.length;
          setTimeout(callback, (data.length / (1024 * 1024)) * 1000);
        },
      }),
    ).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const sent = connection?.bytesSent ?? 0;
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    session.dispose();
    await reading;
    expect(sent).toBeLessThan(total);
    expect(sent - consumed).toBeLessThan(24 * 1024 * 1024);
    expect(rssGrowth).toBeLessThan(64 * 1024 * 1024);
  });
});
