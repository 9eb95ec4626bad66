import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

/** A fake of the parts of Electron the shell uses, recording what it was asked to do. */
const electron = vi.hoisted(() => {
  // vi.hoisted runs before imports: only globals are available here.
  class Emitter {
    private readonly listeners = new Map<string, ((...args: unknown[]) => void)[]>();
    on(name: string, listener: (...args: unknown[]) => void) {
      this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
      return this;
    }
    once(name: string, listener: (...args: unknown[]) => void) {
      return this.on(name, listener);
    }
    off(name: string, listener: (...args: unknown[]) => void) {
      this.listeners.set(
        name,
        (this.listeners.get(name) ?? []).filter((l) => l !== listener),
      );
      return this;
    }
    emit(name: string, ...args: unknown[]) {
      for (const listener of this.listeners.get(name) ?? []) listener(...args);
    }
    count(name: string) {
      return this.listeners.get(name)?.length ?? 0;
    }
  }
  const windows: { options: Record<string, unknown>; loaded: string[]; win: Emitter }[] = [];
  class BrowserWindow extends Emitter {
    static getAllWindows = () => windows.map((w) => w.win);
    readonly loaded: string[] = [];
    constructor(options: Record<string, unknown>) {
      super();
      windows.push({ options, loaded: this.loaded, win: this });
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    maximize() {}
    show() {}
    isDestroyed() {
      return false;
    }
    isMinimized() {
      return false;
    }
    restore() {}
    focus() {}
    getNormalBounds() {
      return { x: 0, y: 0, width: 1280, height: 820 };
    }
    isMaximized() {
      return false;
    }
  }
  let resolveReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  const app = Object.assign(new Emitter(), {
    lock: true,
    requestSingleInstanceLock: () => app.lock,
    quit: () => undefined,
    exit: () => undefined,
    whenReady: () => ready,
    getAppPath: () => '/opt/porthole',
    getVersion: () => '0.1.0',
    isPackaged: false,
    quits: 0,
  });
  const headerHooks: ((
    details: { responseHeaders?: Record<string, string[]> },
    callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
  ) => void)[] = [];
  let permissionHandler: (c: unknown, p: string, cb: (ok: boolean) => void) => void = () =>
    undefined;
  const menus: { template: { role?: string }[] }[] = [];
  return {
    windows,
    menus,
    resolveReady: () => resolveReady(),
    headerHooks,
    permission: (name: string) =>
      new Promise<boolean>((resolve) => permissionHandler(undefined, name, resolve)),
    module: {
      app,
      BrowserWindow,
      ipcMain: new Emitter(),
      Menu: {
        buildFromTemplate: (template: { role?: string }[]) => ({ template }),
        setApplicationMenu: (menu: { template: { role?: string }[] }) => menus.push(menu),
      },
      MessageChannelMain: class {},
      net: { fetch: () => Promise.reject(new Error('no files here')) },
      protocol: {
        schemes: [] as unknown[],
        registerSchemesAsPrivileged(schemes: unknown[]) {
          this.schemes.push(...schemes);
        },
        handled: [] as string[],
        handle(scheme: string) {
          this.handled.push(scheme);
        },
      },
      screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
      session: {
        defaultSession: {
          webRequest: {
            onHeadersReceived: (hook: (typeof headerHooks)[number]) => headerHooks.push(hook),
          },
          setPermissionRequestHandler: (handler: typeof permissionHandler) =>
            (permissionHandler = handler),
          setPermissionCheckHandler: () => undefined,
        },
      },
      shell: { openExternal: () => Promise.resolve() },
    },
  };
});

vi.mock('electron', () => electron.module);
// The core is tested on its own: here a stand-in that records being disposed.
const core = vi.hoisted(() => ({ disposed: 0 }));
vi.mock('../core/composition', () => ({
  createCore: () => ({
    services: {},
    events: {},
    nodes: {},
    dispose: () => core.disposed++,
  }),
}));

describe('the Electron shell', () => {
  // Loading the shell's modules is the slow part on a loaded machine; the tests' own
  // steps are quick. Load once, outside any test's time limit.
  beforeAll(async () => {
    await import('./app');
  }, 60_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-app-'));
    vi.stubEnv('XDG_CONFIG_HOME', dir);
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  it('quits at once when another instance holds the lock', async () => {
    const { runApp } = await import('./app');
    electron.module.app.lock = false;
    const quit = vi.spyOn(electron.module.app, 'quit');
    expect(runApp()).toBe(false);
    expect(quit).toHaveBeenCalled();
    expect(electron.windows).toHaveLength(0);
    electron.module.app.lock = true;
  });

  it('opens one locked-down window on porthole://app and wires the core', async () => {
    const { runApp } = await import('./app');
    expect(runApp()).toBe(true);
    expect(electron.module.protocol.schemes).toEqual([
      expect.objectContaining({ scheme: 'porthole' }),
    ]);
    electron.resolveReady();
    await vi.waitFor(() => expect(electron.windows).toHaveLength(1));
    const [window] = electron.windows;
    expect(window?.options.webPreferences).toMatchObject({
      preload: '/opt/porthole/out/app/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
    await vi.waitFor(() => expect(window?.loaded).toEqual(['porthole://app/index.html']));
    expect(electron.module.protocol.handled).toEqual(['porthole']);
    // The one IPC channel is registered.
    expect(
      (electron.module.ipcMain as unknown as { count(n: string): number }).count('porthole:hello'),
    ).toBe(1);

    // CSP as a response header on everything.
    const [hook] = electron.headerHooks;
    const headers = await new Promise<Record<string, string[]> | undefined>((resolve) =>
      hook?.({ responseHeaders: { a: ['b'] } }, (r) => resolve(r.responseHeaders)),
    );
    expect(headers?.['Content-Security-Policy']?.[0]).toContain("default-src 'none'");
    expect(headers?.a).toEqual(['b']);

    // No camera, microphone, notifications…; clipboard writes only.
    expect(await electron.permission('media')).toBe(false);
    expect(await electron.permission('notifications')).toBe(false);
    expect(await electron.permission('clipboard-sanitized-write')).toBe(true);

    // The usual menus, by role.
    const roles = electron.menus[0]?.template.map((item) => item.role);
    expect(roles).toEqual(
      expect.arrayContaining(['fileMenu', 'editMenu', 'viewMenu', 'windowMenu', 'help']),
    );
    (electron.module.app as unknown as { emit(n: string): void }).emit('will-quit');
    expect(core.disposed).toBe(1);
  });

  it('gives a packaged build no DevTools, in the window or the menu', async () => {
    const { runApp } = await import('./app');
    electron.module.app.isPackaged = true;
    try {
      const before = electron.windows.length;
      expect(runApp()).toBe(true);
      electron.resolveReady();
      await vi.waitFor(() => expect(electron.windows).toHaveLength(before + 1));
      expect(electron.windows.at(-1)?.options.webPreferences).toMatchObject({ devTools: false });
      const roles = electron.menus.at(-1)?.template.map((item) => item.role);
      expect(roles).not.toContain('viewMenu');
    } finally {
      electron.module.app.isPackaged = false;
    }
  });
});
