/**
 * Browser mode: the Porthole core and its UI served to a browser on this machine.
 *
 *   npm run web [-- --port 8080] [--open] [--host 0.0.0.0 --allow-remote] [--no-build]
 *
 * Builds the renderer when it is missing or older than its sources, starts the core
 * with the real services, and prints the URL (with its one-time token) to open.
 */
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCore } from '../electron/core/composition';
import { startHost, type Host } from '../electron/core/host';
import { buildRenderer, rendererIsStale, rendererOutDir } from './build';

export interface BrowserModeOptions {
  readonly port?: number;
  readonly host?: string;
  readonly allowRemote?: boolean;
  readonly open?: boolean;
  readonly build?: boolean;
}

/** Whether a graphical browser can be opened from here, and with which command. */
export function browserOpener(): { command: string; args: string[] } | undefined {
  if (process.platform === 'darwin') return { command: 'open', args: [] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return undefined;
  const found = spawnSync('sh', ['-c', 'command -v xdg-open'], { stdio: 'ignore' });
  return found.status === 0 ? { command: 'xdg-open', args: [] } : undefined;
}

/** Opens `url` in the default browser; false when there is none to open. */
export function openBrowser(url: string): boolean {
  const opener = browserOpener();
  if (opener === undefined) return false;
  const child = spawn(opener.command, [...opener.args, url], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
  return true;
}

/** Starts browser mode and keeps it running until SIGINT/SIGTERM. */
export async function runBrowserMode(options: BrowserModeOptions = {}): Promise<Host> {
  if (options.build !== false && rendererIsStale()) {
    console.log('Building the renderer…');
    await buildRenderer();
  }
  const core = createCore();
  let host: Host;
  try {
    host = await startHost({
      staticDir: rendererOutDir,
      services: core.services,
      events: core.events,
      ...(options.port !== undefined && { port: options.port }),
      ...(options.host !== undefined && { host: options.host }),
      ...(options.allowRemote !== undefined && { allowRemote: options.allowRemote }),
    });
  } catch (error) {
    core.dispose();
    throw error;
  }
  console.log(`Porthole is running in browser mode. Open:\n\n  ${host.url}\n`);
  console.log('The token in the URL is the key: do not share it. Press Ctrl+C to stop.');
  if (options.open === true && !openBrowser(host.url)) {
    console.log('(No browser could be opened from here: copy the URL into one.)');
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    host
      .close()
      .finally(() => {
        core.dispose();
        process.exit(0);
      })
      .catch(() => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return host;
}

export function parseWebArgs(argv: readonly string[]): BrowserModeOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-remote': { type: 'boolean' },
      open: { type: 'boolean' },
      'no-build': { type: 'boolean' },
    },
    strict: true,
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new Error(`--port must be a port number, not "${values.port}".`);
  }
  return {
    ...(port !== undefined && { port }),
    ...(values.host !== undefined && { host: values.host }),
    allowRemote: values['allow-remote'] === true,
    open: values.open === true,
    build: values['no-build'] !== true,
  };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  Promise.resolve()
    .then(() => runBrowserMode(parseWebArgs(process.argv.slice(2))))
    .catch((error: unknown) => {
      const data = error as { message?: string; hint?: string };
      console.error(`Porthole could not start: ${data.message ?? String(error)}`);
      if (data.hint !== undefined) console.error(data.hint);
      process.exitCode = 1;
    });
}
