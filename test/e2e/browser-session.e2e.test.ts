/**
 * Browser mode's way in, in a real Chromium: the printed link works once and leaves an
 * HttpOnly, SameSite=Strict session cookie behind; the page takes the token out of its
 * address and history entry; a reload goes on with the cookie; the same link in another
 * browser gets nothing, and without the cookie no WebSocket opens.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../electron/core/host';
import { createFakeCore } from './fixtures/fake-core';
import { AppPage } from './pages/app-page';
import { startBrowserHost } from './support/browser-app';
import { launchChromium } from './support/chromium';

describe('the one-time link', () => {
  let host: Host;
  let browser: Browser;

  beforeAll(async () => {
    const core = createFakeCore();
    host = await startBrowserHost(core.services, core.events);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('opens the app once, then lives on as a cookie no script can read', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const link = host.issueUrl();
      await page.goto(link);
      const app = new AppPage(page);
      await app.sidebar.waitFor();
      // The token is gone from the address bar and from the history entry.
      await expect.poll(() => page.url()).toBe(`${host.origin}/`);
      expect(await page.evaluate(() => window.location.search)).toBe('');
      // Replaced, not pushed: back is the blank page the tab started on; forward again
      // comes to the address without the token.
      expect(await page.evaluate(() => history.length)).toBe(2);
      await page.goBack();
      expect(page.url()).toBe('about:blank');
      await page.goForward();
      expect(page.url()).toBe(`${host.origin}/`);
      await app.sidebar.waitFor();
      // HttpOnly: invisible to the page's scripts; SameSite=Strict, per port.
      expect(await page.evaluate(() => document.cookie)).toBe('');
      const [cookie] = await context.cookies(host.origin);
      expect(cookie).toMatchObject({
        name: `porthole-${host.port}`,
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
      });
      expect(link).not.toContain(cookie!.value);
      // A reload goes on with the cookie, and the core answers.
      await page.reload();
      await app.sidebar.waitFor();
      await app.go('Nodes');

      // The same link in another browser: refused, and it says why.
      const other = await browser.newContext();
      try {
        const stranger = await other.newPage();
        const answer = await stranger.goto(link);
        expect(answer?.status()).toBe(403);
        expect(await stranger.textContent('body')).toMatch(/used already/);
        // Without the cookie the RPC socket does not open, whatever the page tries.
        const opened = await stranger.evaluate(
          (url) =>
            new Promise<boolean>((resolve) => {
              const socket = new WebSocket(url);
              socket.onopen = () => resolve(true);
              socket.onclose = () => resolve(false);
            }),
          `${host.origin.replace('http', 'ws')}/rpc`,
        );
        expect(opened).toBe(false);
      } finally {
        await other.close();
      }
    } finally {
      await context.close();
    }
  });
});
