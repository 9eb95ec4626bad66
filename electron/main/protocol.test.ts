import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
});
