import type { WebContents, WebPreferences } from 'electron';
import { isAppUrl } from './app-origin';

/** What a build may offer beyond the app itself. */
export interface ShellFeatures {
  /** DevTools: in development only; a packaged build has none (`!app.isPackaged`). */
  readonly devTools: boolean;
}

/**
 * The renderer is untrusted web content: isolated, sandboxed, without Node. It reaches the
 * core only through the one message pipe the preload hands it.
 */
export function secureWebPreferences(preloadPath: string, features: ShellFeatures): WebPreferences {
  return {
    preload: preloadPath,
    devTools: features.devTools,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/**
 * Denies every navigation away from the app and every new window. Links meant for the
 * outside world are handed to `openExternal` (the system browser), and only for http(s).
 * Without DevTools, any that open anyway are closed at once.
 */
export function hardenWebContents(
  contents: WebContents,
  openExternal: (url: string) => void,
  features: ShellFeatures,
): void {
  // Any web contents, not only the window's: none of them opens DevTools in a packaged build.
  if (!features.devTools) contents.on('devtools-opened', () => contents.closeDevTools());
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url)) openExternal(url);
    return { action: 'deny' };
  });
}
