import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { request as tlsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { type AppError } from '../../../shared/errors';
import type { AppLogEntry, NodesDelta } from '../../../shared/model';
import { defaultLogBudget, log } from '../base/log';
import { createClient } from '../../../shared/rpc';
import { fakeEvents, fakeServices } from '../../../shared/contract/testing';
import { startHost, type Host, type HostOptions } from './host';
import { resolveStaticPath } from './static-files';
import { openRpcSocket } from './testing';
import { certificateFingerprint, loadOrCreateCertificate } from './tls';
import { tokenMatches } from './token';
import { notReadingClose, webSocketPort } from './websocket-port';

const services = fakeServices({
  nodes: { list: () => Promise.resolve([]) },
  lifecycle: { validateSpec: () => Promise.resolve({ errors: [] }) },
});
const events = fakeEvents();

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(
  host: Host,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The path and query of a link the host issued. */
function linkPath(host: Host): string {
  const url = new URL(host.issueUrl());
  return `${url.pathname}${url.search}`;
}

/** Tries a WebSocket upgrade; resolves with the HTTP status of a refusal, or 101. */
function upgrade(
  host: Host,
  options: { origin?: string; cookie?: string; path?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${options.path ?? '/rpc'}`, {
      ...(options.origin !== undefined && { origin: options.origin }),
      ...(options.cookie !== undefined && { headers: { cookie: options.cookie } }),
    });
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    });
    ws.on('error', () => resolve({ status: -1, body: '' }));
  });
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
}

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'porthole-host-'));
  root = join(dir, 'app');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<!doctype html><title>Porthole</title>');
  await writeFile(join(root, 'assets', 'app-1234.js'), 'console.log(1)');
  await writeFile(join(root, 'assets', 'app.css'), 'body{}');
  await writeFile(join(dir, 'secret.txt'), 'secret');
  await symlink(join(dir, 'secret.txt'), join(root, 'assets', 'link.txt'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function start(options: Partial<HostOptions> = {}): Promise<Host> {
  return startHost({ staticDir: root, services, events, warn: () => undefined, ...options });
}

describe('browser-mode host', () => {
  let host: Host;
  beforeAll(async () => {
    host = await start();
  });
  afterAll(async () => {
    await host.close();
  });

  it('binds loopback and issues one-time links with 32-byte tokens', () => {
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
    const first = new URL(host.issueUrl());
    const second = new URL(host.issueUrl());
    expect(first.origin).toBe(host.origin);
    expect(Buffer.from(first.searchParams.get('token') ?? '', 'base64url')).toHaveLength(32);
    expect(first.searchParams.get('token')).not.toBe(second.searchParams.get('token'));
    // The login secret is not in any link.
    expect(host.loginCookie.split('=')[1]).not.toBe(first.searchParams.get('token'));
  });

  it('lets a link in once, with an HttpOnly SameSite=Strict login cookie', async () => {
    expect((await get(host, '/')).status).toBe(401);
    expect((await get(host, '/?token=nope')).status).toBe(403);
    const path = linkPath(host);
    // A HEAD (a link preview) does not spend it.
    expect((await get(host, path, {}, 'HEAD')).status).toBe(401);
    const page = await get(host, path);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Porthole</title>');
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toBe(`${host.loginCookie}; Path=/; HttpOnly; SameSite=Strict`);
    // Spent: the same link again lets nobody in, and says why.
    const again = await get(host, path);
    expect(again.status).toBe(403);
    expect(again.body).toMatch(/used already/);
    // The cookie is what reloads (and every other tab of that browser) go on with.
    const reload = await get(host, '/', { cookie: host.loginCookie });
    expect(reload.status).toBe(200);
    expect(reload.headers['set-cookie']).toBeUndefined();
    expect((await get(host, path, { cookie: host.loginCookie })).status).toBe(200);
    expect((await get(host, '/', { cookie: `${host.loginCookie}x` })).status).toBe(401);
  });

  it('serves the app with a strict CSP, no referrer and no caching', async () => {
    const page = await get(host, '/nodes/abc', { cookie: host.loginCookie });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('never serves the app without a link or the cookie, however its path is spelled', async () => {
    for (const path of [
      '/index.html',
      '/%69ndex.html',
      '/%69%6e%64%65%78%2e%68%74%6d%6c',
      '/./index.html',
      '//index.html',
      '/INDEX.HTML',
      '/index.html?x=1',
      '/nodes/abc',
    ]) {
      const answer = await get(host, path);
      expect(answer.status, path).toBe(401);
      expect(answer.body, path).not.toContain('<title>');
    }
    expect((await get(host, '/%E0%A4%A')).status).toBe(400);
  });

  it('serves assets with their MIME types, the path compared decoded', async () => {
    const js = await get(host, '/assets/app-1234.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(host, '/%61ssets/app.css')).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    );
    expect((await get(host, '/assets/missing.js')).status).toBe(404);
  });

  it('never serves files outside the root', async () => {
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/assets/link.txt',
      '/assets/%00.js',
    ]) {
      const answer = await get(host, path, { cookie: host.loginCookie });
      expect(answer.status, path).not.toBe(500);
      expect(answer.body, path).not.toContain('secret');
    }
    expect(resolveStaticPath('/srv/app', '/a/../../etc/passwd')).toBeUndefined();
    expect(resolveStaticPath('/srv/app', '/a/b.js')).toBe('/srv/app/a/b.js');
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const answer = await get(host, linkPath(host), { host: `evil.example:${host.port}` });
    expect(answer.status).toBe(421);
  });

  it('accepts an upgrade only with the login cookie and the own Origin', async () => {
    const cookie = host.loginCookie;
    expect((await upgrade(host, { origin: host.origin })).status).toBe(401);
    expect((await upgrade(host, { origin: host.origin, cookie: `${cookie}x` })).status).toBe(401);
    // A link's token is not a credential for the socket.
    const token = new URL(host.issueUrl()).searchParams.get('token') ?? '';
    expect((await upgrade(host, { origin: host.origin, path: `/rpc?token=${token}` })).status).toBe(
      401,
    );
    expect((await upgrade(host, { origin: 'http://evil.example', cookie })).status).toBe(403);
    expect((await upgrade(host, { cookie })).status).toBe(403);
    const otherPort = `http://127.0.0.1:${host.port + 1}`;
    expect((await upgrade(host, { origin: otherPort, cookie })).status).toBe(403);
    expect((await upgrade(host, { origin: host.origin, cookie })).status).toBe(101);
  });

  it('carries the RPC over the WebSocket', async () => {
    const client = createClient(webSocketPort(await openRpcSocket(host)));
    await expect(client.services.lifecycle.validateSpec('x')).resolves.toEqual({ errors: [] });
    await expect(client.services.nodes.connect('n')).rejects.toMatchObject({
      code: 'unimplemented',
    });
    client.dispose();
  });

  it('refuses to start without a built renderer', async () => {
    await expect(start({ staticDir: join(dir, 'nothing') })).rejects.toMatchObject({
      code: 'failed-precondition',
    });
  });

  it('compares tokens without shortcuts', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('', 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });
});

describe('beyond loopback', () => {
  it('refuses a non-loopback address unless asked, and without TLS even when asked', async () => {
    await expect(start({ host: '0.0.0.0' })).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(start({ host: '0.0.0.0', allowRemote: true })).rejects.toMatchObject({
      code: 'failed-precondition',
      message: expect.stringMatching(/without TLS/) as string,
    });
  });

  it('serves HTTPS with a kept self-signed certificate, printing its fingerprint', async () => {
    const tlsDir = join(dir, 'tls');
    const tls = await loadOrCreateCertificate(tlsDir, { dns: ['localhost'], ips: ['127.0.0.1'] });
    expect(tls.created).toBe(true);
    const kept = await loadOrCreateCertificate(tlsDir, { dns: ['localhost'], ips: ['127.0.0.1'] });
    expect(kept).toMatchObject({ created: false, cert: tls.cert });
    const warnings: string[] = [];
    const host = await start({
      host: '0.0.0.0',
      allowRemote: true,
      tls,
      warn: (message) => warnings.push(message),
    });
    try {
      const fingerprint = certificateFingerprint(tls.cert);
      expect(host.tlsFingerprint).toBe(fingerprint);
      expect(warnings.join('\n')).toMatch(/WARNING.*reachable from other machines/);
      expect(warnings.join('\n')).toContain(fingerprint);
      expect(host.origin).toBe(`https://127.0.0.1:${host.port}`);
      const link = new URL(host.issueUrl());
      const answer = await new Promise<{ status: number; cookie: string; peer: string }>(
        (resolve, reject) => {
          tlsRequest(
            {
              host: '127.0.0.1',
              port: host.port,
              path: `${link.pathname}${link.search}`,
              ca: tls.cert,
            },
            (res) => {
              res.resume();
              resolve({
                status: res.statusCode ?? 0,
                cookie: String(res.headers['set-cookie']),
                peer: (res.socket as TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? '',
              });
            },
          )
            .on('error', reject)
            .end();
        },
      );
      expect(answer.status).toBe(200);
      expect(answer.peer).toBe(fingerprint);
      expect(answer.cookie).toMatch(
        /^__Host-porthole-\d+=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/,
      );
      // Plain HTTP gets nothing.
      await expect(get(host, '/')).rejects.toThrow();
    } finally {
      await host.close();
    }
  });
});

describe('a client cannot make the host hold more than its limits', () => {
  it('refuses sockets past the cap with 503 and says why', async () => {
    const host = await start({ maxConnections: 2 });
    try {
      const open = [await openRpcSocket(host), await openRpcSocket(host)];
      const third = await upgrade(host, { origin: host.origin, cookie: host.loginCookie });
      expect(third.status).toBe(503);
      expect(third.body).toBe(
        'Porthole serves at most 2 connections at once; close another of its tabs.',
      );
      open[0]!.close();
      await closed(open[0]!);
      await expect.poll(() => host.connections).toBe(1);
      expect((await upgrade(host, { origin: host.origin, cookie: host.loginCookie })).status).toBe(
        101,
      );
      open[1]!.close();
    } finally {
      await host.close();
    }
  });

  it('closes a socket that sends a frame over 1 MiB (1009), before parsing it', async () => {
    const host = await start();
    try {
      const ws = await openRpcSocket(host);
      const end = closed(ws);
      ws.send(
        JSON.stringify({
          type: 'call',
          id: 1,
          service: 'x'.repeat(1024 * 1024),
          method: 'y',
          args: [],
        }),
      );
      await expect(end).resolves.toMatchObject({ code: 1009 });
    } finally {
      await host.close();
    }
  });

  it('answers a too deep, too long or oddly named request with an error that echoes nothing', async () => {
    const host = await start();
    try {
      const ws = await openRpcSocket(host);
      const answers = new Map<number, { error: { code: string; message: string } }>();
      ws.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString()) as {
          id: number;
          error: { code: string; message: string };
        };
        answers.set(message.id, message);
      });
      let deep: unknown = 'x';
      for (let i = 0; i < 100; i += 1) deep = [deep];
      const huge = 'M'.repeat(200_000);
      ws.send(
        JSON.stringify({
          type: 'call',
          id: 1,
          service: 'nodes',
          method: 'saveProfile',
          args: [deep],
        }),
      );
      ws.send(JSON.stringify({ type: 'call', id: 2, service: 'nodes', method: huge, args: [] }));
      ws.send(JSON.stringify({ type: 'listen', id: 3, event: huge, argument: null }));
      ws.send(JSON.stringify({ type: 'call', id: 4, service: '<script>', method: 'x', args: [] }));
      await expect.poll(() => answers.size).toBe(4);
      expect(answers.get(1)?.error).toMatchObject({
        code: 'invalid-argument',
        message: 'The message nests deeper than 32 levels.',
      });
      expect(answers.get(2)?.error.message).toBe('Unknown method nodes.(a name no contract has).');
      expect(answers.get(3)?.error.message).toBe('Unknown event (a name no contract has).');
      expect(answers.get(4)?.error.message).toBe('Unknown method (a name no contract has).x.');
      for (const answer of answers.values()) {
        expect(JSON.stringify(answer).length).toBeLessThan(1000);
      }
      ws.close();
    } finally {
      await host.close();
    }
  });

  // 30,000 requests through a real socket: 3 s on a quiet machine, 27 s at a load average
  // of 30, so this test has a bound of its own.
  it(
    'lets a greedy client that never reads hold only its share; a second client is answered',
    { timeout: 90_000 },
    async () => {
      let discovers = 0;
      const refused: AppError[] = [];
      const host = await start({
        services: fakeServices({
          nodes: {
            list: () => Promise.resolve([]),
            // Never answers: each call holds its slot until the connection ends.
            discover: () => {
              discovers += 1;
              return new Promise(() => undefined);
            },
          },
        }),
        limits: { maxInFlightCalls: 64, maxSubscriptions: 32 },
        outgoingBuffer: {
          pauseAbove: 64 * 1024,
          resumeBelow: 16 * 1024,
          closeAbove: 64 * 1024 * 1024,
        },
        onRefused: (error) => refused.push(error),
      });
      const logged: AppLogEntry[] = [];
      const listening = log.attach({ write: (entry) => logged.push(entry) });
      try {
        const greedy = await openRpcSocket(host);
        greedy.pause(); // reads nothing from here on
        const sent = 30_000;
        for (let id = 1; id <= sent; id += 1) {
          greedy.send(`{"type":"call","id":${id},"service":"nodes","method":"discover","args":[]}`);
        }
        for (let id = sent + 1; id <= sent + 100; id += 1) {
          greedy.send(`{"type":"listen","id":${id},"event":"nodes","argument":null}`);
        }
        // Meanwhile another client is answered as usual.
        const second = createClient(webSocketPort(await openRpcSocket(host)));
        await expect(second.services.nodes.list()).resolves.toEqual([]);
        expect(discovers).toBe(64);
        // Once it reads, it hears why each request past the caps was refused.
        const errors: { code: string; message: string }[] = [];
        greedy.on('message', (data: Buffer) => {
          errors.push(
            (JSON.parse(data.toString()) as { error: { code: string; message: string } }).error,
          );
        });
        greedy.resume();
        await expect.poll(() => errors.length, { timeout: 30_000 }).toBe(sent - 64 + 100 - 32);
        expect(discovers).toBe(64);
        expect(refused).toHaveLength(errors.length);
        expect(errors[0]).toMatchObject({
          code: 'resource-exhausted',
          message: 'Too many calls at once: 64 are already running on this connection.',
        });
        expect(errors.at(-1)).toMatchObject({
          code: 'resource-exhausted',
          message: 'Too many subscriptions: 32 are already open on this connection.',
        });
        // The log heard the refusals, within its budget: tens of thousands refused, a few
        // hundred lines.
        const lines = logged.filter((entry) => entry.scope === 'host');
        expect(lines[0]).toMatchObject({
          level: 'warn',
          message: 'The RPC refused a request from the browser.',
          detail:
            'resource-exhausted: Too many calls at once: 64 are already running on this connection.',
        });
        expect(lines.length).toBeLessThanOrEqual(defaultLogBudget.entries + 1);
        second.dispose();
        greedy.close();
      } finally {
        listening.dispose();
        await host.close();
      }
    },
  );

  it(
    'closes (1008) a socket whose unread answers pass the limit, and stops its work',
    { timeout: 90_000 },
    async () => {
      let live = 0;
      const payload = 'p'.repeat(100_000);
      const host = await start({
        events: fakeEvents({
          nodes: (_argument, sink) => {
            live += 1;
            sink.next({ reset: true, upserted: [{ nodeId: payload } as never], removed: [] });
            return { dispose: () => (live -= 1) };
          },
        }),
        // Never paused before it is closed: all 200 requests are read.
        outgoingBuffer: {
          pauseAbove: 8 * 1024 * 1024,
          resumeBelow: 64 * 1024,
          closeAbove: 1024 * 1024,
        },
      });
      try {
        const greedy = await openRpcSocket(host);
        greedy.pause();
        for (let id = 1; id <= 200; id += 1) {
          greedy.send(`{"type":"listen","id":${id},"event":"nodes","argument":null}`);
        }
        await expect.poll(() => host.connections).toBe(0);
        // Everything it subscribed to was disposed with it.
        expect(live).toBe(0);
        const end = closed(greedy);
        greedy.resume();
        await expect(end).resolves.toEqual(notReadingClose);
      } finally {
        await host.close();
      }
    },
  );

  it('sends the client answers larger than what it may send (a big snapshot is one event)', async () => {
    const big = 'n'.repeat(3 * 1024 * 1024);
    const host = await start({
      events: fakeEvents({
        nodes: (_argument, sink) => {
          sink.next({ reset: true, upserted: [{ nodeId: big } as never], removed: [] });
          return { dispose: () => undefined };
        },
      }),
    });
    try {
      const client = createClient(webSocketPort(await openRpcSocket(host)));
      const payload = await new Promise<NodesDelta>((resolve) =>
        client.subscribe('nodes', undefined, resolve),
      );
      expect(payload.upserted[0]?.nodeId).toHaveLength(big.length);
      client.dispose();
    } finally {
      await host.close();
    }
  });

  it('stops reading a socket whose answers pile up unread, and reads again once they drain', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
      const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
      await new Promise((resolve) => client.once('open', resolve));
      const socket = await accepted;
      client.pause();
      const port = webSocketPort(socket, {
        buffer: { pauseAbove: 1024 * 1024, resumeBelow: 256 * 1024, closeAbove: 1024 ** 3 },
      });
      const chunk = 'x'.repeat(512 * 1024);
      // The kernel takes what it can first (tens of MiB on loopback); then it piles up here.
      let sent = 0;
      while (!socket.isPaused && sent < 512) {
        port.postMessage({ type: 'event', id: 1, payload: chunk });
        sent += 1;
      }
      expect(socket.isPaused).toBe(true);
      expect(socket.bufferedAmount).toBeGreaterThan(1024 * 1024);
      let received = 0;
      client.on('message', () => (received += 1));
      client.resume();
      await expect.poll(() => socket.isPaused, { timeout: 30_000 }).toBe(false);
      await expect.poll(() => received, { timeout: 30_000 }).toBe(sent);
      client.close();
    } finally {
      server.close();
    }
  });
});
