import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { WebContents } from 'electron';
import { isAppUrl } from './app-origin';
import { menuTemplate } from './menu';
import { hardenWebContents, secureWebPreferences } from './security';

vi.mock('electron', () => ({}));

class FakeContents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: string }) | undefined;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.openHandler = handler;
  }
}

function navigate(contents: FakeContents, event: string, url: string): boolean {
  const preventDefault = vi.fn();
  contents.emit(event, { preventDefault }, url);
  return preventDefault.mock.calls.length > 0;
}

describe('the renderer sandbox', () => {
  it('isolates the page: context isolation, sandbox, no Node anywhere', () => {
    expect(secureWebPreferences('/app/preload.cjs', { devTools: true })).toMatchObject({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
    });
  });

  it('has no DevTools in a packaged build: not in the window, not in the menu, closed if opened', () => {
    expect(secureWebPreferences('/app/preload.cjs', { devTools: false }).devTools).toBe(false);
    expect(secureWebPreferences('/app/preload.cjs', { devTools: true }).devTools).toBe(true);
    const roles = (template: ReturnType<typeof menuTemplate>): string[] =>
      template.flatMap((item) => [
        String(item.role ?? item.label),
        ...(Array.isArray(item.submenu) ? item.submenu.map((sub) => String(sub.role ?? '')) : []),
      ]);
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const packaged = roles(menuTemplate(platform, { devTools: false }));
      expect(packaged).not.toContain('viewMenu'); // the role's menu has Toggle Developer Tools
      expect(packaged).not.toContain('toggleDevTools');
      expect(packaged).toEqual(expect.arrayContaining(['View', 'reload', 'zoomIn']));
      expect(roles(menuTemplate(platform, { devTools: true }))).toContain('viewMenu');
    }
    const contents = Object.assign(new FakeContents(), { closeDevTools: vi.fn() });
    hardenWebContents(contents as unknown as WebContents, vi.fn(), { devTools: false });
    contents.emit('devtools-opened');
    expect(contents.closeDevTools).toHaveBeenCalledOnce();
  });

  it('recognises only porthole://app URLs as the app', () => {
    expect(isAppUrl('porthole://app/index.html')).toBe(true);
    expect(isAppUrl('porthole://app/pods?x=1')).toBe(true);
    expect(isAppUrl('porthole://other/index.html')).toBe(false);
    expect(isAppUrl('file:///etc/passwd')).toBe(false);
    expect(isAppUrl('https://app/')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
    expect(isAppUrl(null)).toBe(false);
  });

  it('denies navigation and redirects away from the app', () => {
    const contents = new FakeContents();
    hardenWebContents(contents as unknown as WebContents, vi.fn(), { devTools: true });
    expect(navigate(contents, 'will-navigate', 'https://evil.example/')).toBe(true);
    expect(navigate(contents, 'will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(navigate(contents, 'will-redirect', 'https://evil.example/')).toBe(true);
    expect(navigate(contents, 'will-navigate', 'porthole://app/index.html')).toBe(false);
    expect(navigate(contents, 'will-attach-webview', 'porthole://app/')).toBe(true);
  });

  it('denies every new window, sending http(s) links to the system browser', () => {
    const contents = new FakeContents();
    const openExternal = vi.fn();
    hardenWebContents(contents as unknown as WebContents, openExternal, { devTools: true });
    expect(contents.openHandler?.({ url: 'https://kubernetes.io/' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'porthole://app/x' })).toEqual({ action: 'deny' });
    expect(openExternal.mock.calls).toEqual([['https://kubernetes.io/']]);
  });
});
