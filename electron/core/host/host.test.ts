import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient } from '../../../shared/rpc';
import { startHost, type Host } from './host';
import { resolveStaticPath } from './static-files';
import { tokenMatches } from './token';
import { webSocketPort } from './websocket-port';
import { fakeEvents, fakeServices } from '../../../shared/contract/testing';

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

function get(host: Host, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers }, (res) => {
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

/** Tries a WebSocket upgrade; resolves with the HTTP status of a refusal, or 101. */
function upgrade(host: Host, query: string, origin: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/rpc${query}`, {
      ...(origin !== undefined && { origin }),
    });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(-1));
  });
}

describe('browser-mode host', () => {
  let dir: string;
  let host: Host;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-host-'));
    const root = join(dir, 'app');
    await mkdir(join(root, 'assets'), { recursive: true });
    await writeFile(join(root, 'index.html'), '<!doctype html><title>Porthole</title>');
    await writeFile(join(root, 'assets', 'app-1234.js'), 'console.log(1)');
    await writeFile(join(root, 'assets', 'app.css'), 'body{}');
    await writeFile(join(dir, 'secret.txt'), 'secret');
    await symlink(join(dir, 'secret.txt'), join(root, 'assets', 'link.txt'));
    host = await startHost({ staticDir: root, services, events, warn: () => undefined });
  });

  afterAll(async () => {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('binds loopback and prints a URL with a 32-byte token', () => {
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
    expect(Buffer.from(host.token, 'base64url')).toHaveLength(32);
    expect(host.url).toBe(`${host.origin}/?token=${host.token}`);
  });

  it('serves the app only with the token, with a strict CSP and no referrer', async () => {
    expect((await get(host, '/')).status).toBe(401);
    expect((await get(host, '/?token=nope')).status).toBe(403);
    const page = await get(host, `/?token=${host.token}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<title>Porthole</title>');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    // App routes (client-side paths) are the app too.
    expect((await get(host, `/nodes/abc?token=${host.token}`)).status).toBe(200);
  });

  it('serves assets with their MIME types', async () => {
    const js = await get(host, '/assets/app-1234.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(host, '/assets/app.css')).headers['content-type']).toBe(
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
      '/%00.js',
    ]) {
      const answer = await get(host, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain('secret');
    }
    expect(resolveStaticPath('/srv/app', '/a/../../etc/passwd')).toBeUndefined();
    expect(resolveStaticPath('/srv/app', '/a/b.js')).toBe('/srv/app/a/b.js');
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    expect(
      (await get(host, `/?token=${host.token}`, { host: `evil.example:${host.port}` })).status,
    ).toBe(421);
  });

  it('accepts an upgrade only with the token and the own Origin', async () => {
    expect(await upgrade(host, '', host.origin)).toBe(401);
    expect(await upgrade(host, '?token=wrong', host.origin)).toBe(403);
    expect(await upgrade(host, `?token=${host.token}`, 'http://evil.example')).toBe(403);
    expect(await upgrade(host, `?token=${host.token}`, undefined)).toBe(403);
    expect(await upgrade(host, `?token=${host.token}`, `http://127.0.0.1:${host.port + 1}`)).toBe(
      403,
    );
    expect(await upgrade(host, `?token=${host.token}`, host.origin)).toBe(101);
  });

  it('carries the RPC over the WebSocket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/rpc?token=${host.token}`, {
      origin: host.origin,
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const client = createClient(webSocketPort(ws));
    await expect(client.services.lifecycle.validateSpec('x')).resolves.toEqual({ errors: [] });
    await expect(client.services.nodes.connect('n')).rejects.toMatchObject({
      code: 'unimplemented',
    });
    client.dispose();
  });

  it('refuses to bind a non-loopback address unless asked, and warns when asked', async () => {
    await expect(
      startHost({ staticDir: dir, services, events, host: '0.0.0.0' }),
    ).rejects.toMatchObject({ code: 'invalid-argument' });
    const warnings: string[] = [];
    const open = await startHost({
      staticDir: join(dir, 'app'),
      services,
      events,
      host: '0.0.0.0',
      allowRemote: true,
      warn: (m) => warnings.push(m),
    });
    await open.close();
    expect(warnings[0]).toMatch(/WARNING/);
  });

  it('refuses to start without a built renderer', async () => {
    await expect(
      startHost({ staticDir: join(dir, 'nothing'), services, events }),
    ).rejects.toMatchObject({
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
