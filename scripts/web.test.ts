/**
 * `npm run web --open`: the browser is handed a private launcher page, never the link
 * itself, so the one-time token is not on any command line (/proc/<pid>/cmdline is
 * readable by every local user); the page goes as soon as its link is used.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeEvents, fakeServices } from '../shared/contract/testing';
import { startHost, type Host } from '../electron/core/host';
import { openInBrowser, parseWebArgs } from './web';

let dir: string;
let host: Host;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'porthole-web-'));
  await mkdir(join(dir, 'app'));
  await writeFile(join(dir, 'app', 'index.html'), '<!doctype html><title>Porthole</title>');
  host = await startHost({
    staticDir: join(dir, 'app'),
    services: fakeServices(),
    events: fakeEvents(),
    warn: () => undefined,
  });
});

afterAll(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

function status(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: host.port, path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

describe('opening browser mode in a browser', () => {
  it('puts a launcher path on the command line, not the link, and removes it once used', async () => {
    const argv: string[] = [];
    expect(await openInBrowser(host, (target) => (argv.push(target), true))).toBe(true);
    expect(argv).toHaveLength(1);
    const page = argv[0]!;
    expect(page).not.toMatch(/token|127\.0\.0\.1/);
    expect(statSync(page).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(page)).mode & 0o777).toBe(0o700);
    const html = readFileSync(page, 'utf8');
    const link = /url=(http:\/\/[^"]+)"/.exec(html)?.[1];
    expect(link).toMatch(new RegExp(`^${host.origin}/\\?token=[A-Za-z0-9_-]{43}$`));
    expect(html).toContain('no-referrer');
    // The browser follows it: the link is spent and the launcher is gone.
    const url = new URL(link!);
    expect(await status(`${url.pathname}${url.search}`)).toBe(200);
    await expect.poll(() => existsSync(dirname(page))).toBe(false);
    expect(await status(`${url.pathname}${url.search}`)).toBe(403);
  });

  it('removes the launcher when there is no browser to open it', async () => {
    const argv: string[] = [];
    expect(await openInBrowser(host, (target) => (argv.push(target), false))).toBe(false);
    await expect.poll(() => existsSync(dirname(argv[0]!))).toBe(false);
  });

  it('reads its options', () => {
    expect(parseWebArgs(['--host', '0.0.0.0', '--allow-remote', '--open'])).toMatchObject({
      host: '0.0.0.0',
      allowRemote: true,
      open: true,
    });
    expect(() => parseWebArgs(['--port', 'x'])).toThrow(/port number/);
  });
});
