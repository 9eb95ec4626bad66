import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HostDownload } from '../core/host/downloads';
import { appContentSecurityPolicy, handleAppProtocol, registerAppScheme } from './protocol';

vi.mock('electron', () => ({}));

describe('the porthole:// protocol', () => {
  let dir: string;
  let handler: (request: Request) => Promise<Response>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-protocol-'));
    await mkdir(join(dir, 'renderer/assets'), { recursive: true });
    await writeFile(join(dir, 'renderer/index.html'), '<title>Porthole</title>');
    await writeFile(join(dir, 'renderer/assets/app.js'), 'x');
    await writeFile(join(dir, 'secret.txt'), 'secret');
    const protocol = {
      handle: (_scheme: string, fn: (request: Request) => Promise<Response>) => (handler = fn),
    };
    // Electron's net.fetch reads file:// URLs; Node's fetch does not, so read them here.
    const net = {
      fetch: async (url: string) => new Response(await readFile(fileURLToPath(url))),
    };
    handleAppProtocol(protocol, net, join(dir, 'renderer'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const get = (url: string, method = 'GET') => handler(new Request(url, { method }));

  it('registers a standard, secure scheme', () => {
    const registerSchemesAsPrivileged = vi.fn();
    registerAppScheme({ registerSchemesAsPrivileged });
    expect(registerSchemesAsPrivileged).toHaveBeenCalledWith([
      { scheme: 'porthole', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
  });

  it('serves index.html for app routes, with the CSP header', async () => {
    for (const url of ['porthole://app/', 'porthole://app/index.html', 'porthole://app/pods/x']) {
      const response = await get(url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(appContentSecurityPolicy);
      expect(await response.text()).toBe('<title>Porthole</title>');
    }
    expect(appContentSecurityPolicy).toContain("script-src 'self'");
    expect(appContentSecurityPolicy).toContain("connect-src 'self';");
  });

  it('serves assets with their MIME type', async () => {
    const response = await get('porthole://app/assets/app.js');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('serves nothing outside the renderer, from another host, or for other methods', async () => {
    expect((await get('porthole://app/assets/%2e%2e/%2e%2e/secret.txt')).status).toBe(404);
    expect((await get('porthole://app/../secret.txt')).status).toBe(404);
    expect((await get('porthole://app/missing.js')).status).toBe(404);
    expect((await get('porthole://other/index.html')).status).toBe(404);
    expect((await get('porthole://app/index.html', 'POST')).status).toBe(404);
  });

  describe('file downloads', () => {
    const chunks = [0, 1, 2].map((index) => Buffer.alloc(64 * 1024, index + 1));
    let downloadHandler: (request: Request) => Promise<Response>;
    const asked: string[] = [];

    beforeAll(() => {
      const downloads = (transferId: string): Promise<HostDownload | undefined> => {
        asked.push(transferId);
        if (transferId === 't-ok') {
          return Promise.resolve({
            fileName: 'rapport été.tar',
            contentType: 'application/x-tar',
            body: Readable.from(chunks),
          });
        }
        if (transferId === 't-broken') {
          async function* failing() {
            yield chunks[0];
            await Promise.resolve();
            throw new Error('the container went away');
          }
          return Promise.resolve({
            fileName: 'broken.bin',
            contentType: 'application/octet-stream',
            body: Readable.from(failing()),
          });
        }
        if (transferId === 't-throws') return Promise.reject(new Error('no such transfer'));
        return Promise.resolve(undefined);
      };
      const protocol = {
        handle: (_scheme: string, fn: (request: Request) => Promise<Response>) =>
          (downloadHandler = fn),
      };
      handleAppProtocol(
        protocol,
        { fetch: () => Promise.reject(new Error('unused')) },
        dir,
        downloads,
      );
    });

    const download = (id: string) =>
      downloadHandler(new Request(`porthole://app/files/download/${id}`));

    it('streams a prepared download with its name, as an attachment, never cached', async () => {
      const response = await download('t-ok');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-tar');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="rapport _t_.tar"; filename*=UTF-8''rapport%20%C3%A9t%C3%A9.tar`,
      );
      expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.concat(chunks))).toBe(true);
      expect(asked).toContain('t-ok');
    });

    it('answers 404 for a transfer it does not know or cannot start', async () => {
      expect((await download('t-unknown')).status).toBe(404);
      expect((await download('t-throws')).status).toBe(404);
    });

    it('fails the download when the source fails mid-way, instead of ending it short', async () => {
      const response = await download('t-broken');
      expect(response.status).toBe(200);
      await expect(response.arrayBuffer()).rejects.toThrow();
    });
  });
});
