/**
 * Porthole in browser mode, in-process: the real host (electron/core/host) serving the
 * built renderer, over whatever services the test passes (the real core, or a fake).
 * `openApp` gives a Playwright Page: the page objects only ever see a Page, so the same
 * specs can drive the Electron window (`electronApp.firstWindow()`) where Electron runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import type { EventSource, ServiceHandlers } from '../../../shared/contract';
import { startHost, type Host, type HostOptions } from '../../../electron/core/host';
import { rendererConfig } from '../../../scripts/build';

let built: Promise<string> | undefined;

/**
 * Builds the renderer once per test worker, into a private directory: other processes
 * may be rebuilding out/app/renderer at the same time, and a page must not load half of
 * one build and half of another.
 *
 * Vite decides "production" from NODE_ENV, which vitest sets to `test`: the build would
 * then use React's development JSX runtime against a production React ("jsxDEV is not a
 * function"). So it builds as production whatever runs it.
 */
export function ensureRendererBuilt(): Promise<string> {
  built ??= (async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'porthole-e2e-renderer-'));
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const config = rendererConfig();
      await build({ ...config, logLevel: 'error', build: { ...config.build, outDir } });
    } finally {
      if (previous === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = previous;
    }
    return outDir;
  })();
  return built;
}

let openHosts = 0;

/** The host; closing the last one also deletes the private build. */
export async function startBrowserHost(
  services: ServiceHandlers,
  events: EventSource,
  downloads?: HostOptions['downloads'],
): Promise<Host> {
  const staticDir = await ensureRendererBuilt();
  const host = await startHost({
    staticDir,
    services,
    events,
    warn: () => undefined,
    ...(downloads !== undefined && { downloads }),
  });
  openHosts += 1;
  let closed = false;
  return Object.assign(Object.create(host) as Host, {
    async close(): Promise<void> {
      await host.close();
      if (closed) return;
      closed = true;
      openHosts -= 1;
      if (openHosts === 0) {
        built = undefined;
        rmSync(staticDir, { recursive: true, force: true });
      }
    },
  });
}

export interface OpenOptions {
  readonly colorScheme?: 'light' | 'dark';
  readonly width?: number;
  readonly height?: number;
}

export interface OpenedApp {
  readonly page: Page;
  /** Uncaught page errors: a spec fails if any appear. */
  readonly pageErrors: string[];
  close(): Promise<void>;
}

export async function openApp(
  browser: Browser,
  host: Host,
  options: OpenOptions = {},
): Promise<OpenedApp> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? 'light',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(host.issueUrl());
  return { page, pageErrors, close: () => context.close() };
}
