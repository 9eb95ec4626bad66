import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { directDialer, type Dialer } from '../dial';
import { encodeControlFrame } from './frames';
import { UpgradeError, isUpgradeFailure } from '../upgrade';
import { upgradeToSpdy } from './index';
import { FakeSpdyServer } from './testing/fake-spdy-server';

const ALL = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeServer(
  options: Parameters<typeof FakeSpdyServer.start>[0] = {},
): Promise<FakeSpdyServer> {
  const server = await FakeSpdyServer.start(options);
  cleanups.push(() => server.close());
  return server;
}

async function upgradeError(promise: Promise<unknown>): Promise<UpgradeError> {
  const error: unknown = await promise.then(
    () => new Error('expected the upgrade to fail'),
    (e: unknown) => e,
  );
  if (!isUpgradeFailure(error)) throw error;
  return error;
}

/** A TCP server that accepts and then says nothing. */
async function silentServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('upgradeToSpdy', () => {
  it('upgrades with one X-Stream-Protocol-Version line per offer and takes the chosen one', async () => {
    const server = await fakeServer({ protocols: ['v4.channel.k8s.io', 'channel.k8s.io'] });
    const session = await upgradeToSpdy({
      url: server.url('/exec/abc?x=1'),
      protocols: ['v5.channel.k8s.io', ...ALL],
    });
    cleanups.push(() => session.dispose());
    expect(session.protocol).toBe('v4.channel.k8s.io');
    const request = server.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/exec/abc?x=1');
    const lines = request?.headerLines ?? [];
    expect(
      lines.filter(([name]) => name === 'X-Stream-Protocol-Version').map(([, v]) => v),
    ).toEqual(['v5.channel.k8s.io', ...ALL]);
    expect(lines).toContainEqual(['Upgrade', 'SPDY/3.1']);
    expect(lines).toContainEqual(['Connection', 'Upgrade']);
    expect(lines).toContainEqual(['Content-Length', '0']);
    expect(lines).toContainEqual(['Host', `127.0.0.1:${server.port}`]);
  });

  it('reports an empty protocol when the server names none', async () => {
    const server = await fakeServer({ omitProtocolHeader: true });
    const session = await upgradeToSpdy({ url: server.url(), protocols: ALL });
    cleanups.push(() => session.dispose());
    expect(session.protocol).toBe('');
  });

  it('feeds bytes that came with the 101 answer to the session', async () => {
    // A server PING (even id) in the same packet as the 101: it must be answered.
    const server = await fakeServer({
      afterUpgrade: encodeControlFrame({ type: 'ping', id: 4 }),
    });
    const session = await upgradeToSpdy({ url: server.url(), protocols: ALL });
    cleanups.push(() => session.dispose());
    const connection = server.connections[0];
    const deadline = Date.now() + 2000;
    while (connection?.received.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(connection?.received).toEqual([{ type: 'ping', id: 4 }]);
  });

  it('maps 404 to not-found: the URL expired or was used', async () => {
    const server = await fakeServer();
    const error = await upgradeError(
      upgradeToSpdy({ url: server.url('/expired/x'), protocols: ALL }),
    );
    expect(error).toBeInstanceOf(UpgradeError);
    expect(error.code).toBe('not-found');
    expect(error.status).toBe(404);
    expect(error.body).toBe('stream token not found or expired');
    expect(error.message).toMatch(/expired or was already used/);
    expect(error.hint).toMatch(/single use/);
    expect(error.toJSON()).toMatchObject({ code: 'not-found' });
  });

  it('maps 403 to failed-precondition with the runtime text and the offers', async () => {
    const server = await fakeServer();
    const error = await upgradeError(
      upgradeToSpdy({ url: server.url(), protocols: ['v5.channel.k8s.io'] }),
    );
    expect(error.code).toBe('failed-precondition');
    expect(error.status).toBe(403);
    expect(error.message).toContain('v5.channel.k8s.io');
    expect(error.body).toMatch(/unable to negotiate protocol/);
    expect(error.detail).toMatch(/^HTTP 403: unable to upgrade/);
    expect(error.offered).toEqual(['v5.channel.k8s.io']);
  });

  it('maps 400 to failed-precondition', async () => {
    const server = await fakeServer();
    const error = await upgradeError(
      upgradeToSpdy({ url: server.url('/bad-request'), protocols: ALL }),
    );
    expect(error.code).toBe('failed-precondition');
    expect(error.status).toBe(400);
    expect(error.body).toMatch(/missing upgrade headers/);
  });

  it('maps a refused connection to unavailable', async () => {
    const port = await silentServer();
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : port));
      });
    });
    const error = await upgradeError(
      upgradeToSpdy({ url: `http://127.0.0.1:${closedPort}/exec/x`, protocols: ALL }),
    );
    expect(error.code).toBe('unavailable');
    expect(error.status).toBeUndefined();
    expect(error.detail).toMatch(/ECONNREFUSED/);
  });

  it('gives up after the timeout, and when the caller aborts', async () => {
    const port = await silentServer();
    const url = `http://127.0.0.1:${port}/exec/x`;
    const started = Date.now();
    const timeout = await upgradeError(upgradeToSpdy({ url, protocols: ALL, timeoutMs: 150 }));
    expect(timeout.code).toBe('deadline-exceeded');
    expect(Date.now() - started).toBeLessThan(2000);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const aborted = await upgradeError(
      upgradeToSpdy({ url, protocols: ALL, signal: controller.signal }),
    );
    expect(aborted.code).toBe('cancelled');
  });

  it('dials through the given dialer', async () => {
    const server = await fakeServer();
    const dialled: string[] = [];
    const dialer: Dialer = (host, port, signal) => {
      dialled.push(`${host}:${port}`);
      return directDialer(host, port, signal);
    };
    const session = await upgradeToSpdy({ url: server.url(), protocols: ALL, dialer });
    cleanups.push(() => session.dispose());
    expect(dialled).toEqual([`127.0.0.1:${server.port}`]);
  });

  it('rejects bad arguments before connecting', async () => {
    for (const [url, protocols] of [
      ['not a url', ALL],
      ['ws://127.0.0.1:1/exec/x', ALL],
      ['http://127.0.0.1:1/exec/x', []],
      ['http://127.0.0.1:1/exec/x', ['a,b']],
    ] as const) {
      const error = await upgradeError(upgradeToSpdy({ url, protocols }));
      expect(error.code).toBe('invalid-argument');
    }
  });

  it('leaves no socket behind after dispose', async () => {
    const server = await fakeServer();
    const session = await upgradeToSpdy({ url: server.url(), protocols: ALL });
    // White-box: the session's own socket, to see it really goes.
    const socket = (session as unknown as { socket: Socket }).socket;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    session.dispose();
    await server.connections[0]?.closed;
    await closed;
    expect(socket.destroyed).toBe(true);
    expect(socket.listenerCount('data')).toBe(0);
    expect(socket.listenerCount('drain')).toBe(0);
  });
});

/** A self-signed certificate for 127.0.0.1, made with the openssl CLI (skipped without it). */
function selfSigned(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'porthole-spdy-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tls = selfSigned();

describe.skipIf(tls === undefined)('upgradeToSpdy over TLS (enable_tls_streaming)', () => {
  it('refuses a self-signed certificate with permission-denied and a hint', async () => {
    const server = await fakeServer({ tls });
    const error = await upgradeError(upgradeToSpdy({ url: server.url(), protocols: ALL }));
    expect(error.code).toBe('permission-denied');
    expect(error.status).toBeUndefined();
    expect(error.detail).toMatch(/SELF_SIGNED/);
    expect(error.hint).toMatch(/self-signed/);
  });

  it('accepts it when told to, or with its CA, and streams over TLS', async () => {
    const server = await fakeServer({ tls });
    const insecure = await upgradeToSpdy({
      url: server.url(),
      protocols: ALL,
      tls: { rejectUnauthorized: false },
    });
    cleanups.push(() => insecure.dispose());
    const first = await insecure.createStream({ streamtype: 'error' });
    first.on('error', () => undefined);
    expect(first.id).toBe(1);

    const pinned = await upgradeToSpdy({
      url: server.url(),
      protocols: ALL,
      tls: { rejectUnauthorized: true, ca: tls?.cert ?? '' },
    });
    cleanups.push(() => pinned.dispose());
    const stream = await pinned.createStream({ streamtype: 'stdin' });
    stream.on('error', () => undefined);
    expect(await pinned.ping()).toBeGreaterThanOrEqual(0);
  });
});
