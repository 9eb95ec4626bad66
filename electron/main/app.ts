import { join } from 'node:path';
import {
  app,
  BrowserWindow,
  ipcMain,
  Menu,
  MessageChannelMain,
  net,
  protocol,
  screen,
  session,
  shell,
} from 'electron';
import { DisposableStore, toDisposable } from '../../shared/lifecycle';
import { createCore } from '../core/composition';
import { logger } from '../core/base/log';
import { defaultConfigDir } from '../core/base/config';
import { appEntryUrl } from './app-origin';
import { registerIpc } from './ipc';
import { menuTemplate } from './menu';
import { appContentSecurityPolicy, handleAppProtocol, registerAppScheme } from './protocol';
import { hardenWebContents, secureWebPreferences, type ShellFeatures } from './security';
import {
  captureWindowState,
  loadWindowState,
  minimumWindowSize,
  saveWindowState,
} from './window-state';

/** Where the build puts things, relative to the app (the folder with package.json). */
export const layout = {
  renderer: 'out/app/renderer',
  preload: 'out/app/preload/index.cjs',
} as const;

/** Permissions the page may have: writing to the clipboard (copy from a terminal). */
const allowedPermissions = new Set(['clipboard-sanitized-write']);

const shellLog = logger('shell');

function openExternal(url: string): void {
  if (!/^https?:\/\//i.test(url)) return;
  shell
    .openExternal(url)
    .catch((error: unknown) => shellLog.warn(`Could not open ${url} in the browser.`, error));
}

/**
 * The Electron shell: one window onto the core. Everything that talks to a node runs in
 * electron/core, served over one MessagePort per page; this file only wires Electron.
 * Returns false when another instance already runs (this one then quits).
 */
export function runApp(): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  registerAppScheme(protocol);
  // DevTools only where the app runs from its sources, never in a packaged build.
  const features: ShellFeatures = { devTools: !app.isPackaged };

  const store = new DisposableStore();
  const configDir = defaultConfigDir();
  let window: BrowserWindow | undefined;

  const focus = (): void => {
    if (window === undefined || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  };
  app.on('second-instance', focus);

  // Every web contents, including any we did not create on purpose, is locked down.
  app.on('web-contents-created', (_event, contents) =>
    hardenWebContents(contents, openExternal, features),
  );

  const createWindow = async (): Promise<void> => {
    const displays = screen.getAllDisplays().map((display) => display.workArea);
    const state = await loadWindowState(configDir, displays);
    const created = new BrowserWindow({
      ...(state.x !== undefined && state.y !== undefined && { x: state.x, y: state.y }),
      width: state.width,
      height: state.height,
      minWidth: minimumWindowSize.width,
      minHeight: minimumWindowSize.height,
      show: false,
      title: 'Porthole',
      backgroundColor: '#1e1e1e',
      webPreferences: secureWebPreferences(join(app.getAppPath(), layout.preload), features),
    });
    window = created;
    if (state.maximized) created.maximize();
    created.once('ready-to-show', () => created.show());

    let saveTimer: ReturnType<typeof setTimeout> | undefined;
    const save = (): void => {
      if (created.isDestroyed()) return;
      saveWindowState(configDir, captureWindowState(created)).catch((error: unknown) =>
        shellLog.warn('Could not save the window size and place.', error),
      );
    };
    const saveSoon = (): void => {
      if (saveTimer !== undefined) clearTimeout(saveTimer);
      saveTimer = setTimeout(save, 500);
    };
    created.on('resize', saveSoon);
    created.on('move', saveSoon);
    created.on('maximize', saveSoon);
    created.on('unmaximize', saveSoon);
    created.on('close', () => {
      if (saveTimer !== undefined) clearTimeout(saveTimer);
      save();
    });
    created.on('closed', () => {
      if (window === created) window = undefined;
    });
    await created.loadURL(appEntryUrl);
  };

  app
    .whenReady()
    .then(async () => {
      const core = store.add(createCore({ configDir, appVersion: app.getVersion() }));
      handleAppProtocol(protocol, net, join(app.getAppPath(), layout.renderer), core.downloads);
      // The CSP is also set as a header on every response (and as a meta tag in the page).
      session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
        callback({
          responseHeaders: {
            ...details.responseHeaders,
            'Content-Security-Policy': [appContentSecurityPolicy],
          },
        });
      });
      session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) =>
        callback(allowedPermissions.has(permission)),
      );
      session.defaultSession.setPermissionCheckHandler((_contents, permission) =>
        allowedPermissions.has(permission),
      );
      store.add(
        registerIpc({
          ipcMain,
          MessageChannelMain,
          services: core.services,
          events: core.events,
          onRefused: (url) => shellLog.warn(`Refused IPC from ${url}: not the app's own frame.`),
          onProtocolError: (error) => shellLog.warn('The RPC refused a request.', error),
        }),
      );
      Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(process.platform, features)));
      await createWindow();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) createWindow().catch(fatal);
      });
    })
    .catch(fatal);

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', () => store.dispose());
  store.add(toDisposable(() => app.off('second-instance', focus)));
  return true;
}

function fatal(error: unknown): void {
  shellLog.error('Porthole failed to start.', error);
  console.error('Porthole failed to start:', error);
  app.exit(1);
}
