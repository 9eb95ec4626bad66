/**
 * Browser mode: the Porthole core and its UI served to a browser on this machine.
 *
 *   npm run web [-- --port 8080] [--open] [--host 0.0.0.0 --allow-remote] [--no-build]
 *
 * Builds the renderer when it is missing or older than its sources, starts the core
 * with the real services, and prints a one-time link to open (Enter prints another, for
 * a second browser). Beyond loopback it serves HTTPS with a self-signed certificate kept
 * in the config directory, and prints the certificate's fingerprint.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCore } from '../electron/core/composition';
import { loadOrCreateCertificate, startHost, type Host, type HostTls } from '../electron/core/host';
import { defaultConfigDir } from '../electron/core/base/config';
import { buildRenderer, rendererIsStale, rendererOutDir, root } from './build';

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

/** Opens `target` (a file) in the default browser; false when there is none to open. */
export function openBrowser(target: string): boolean {
  const opener = browserOpener();
  if (opener === undefined) return false;
  const child = spawn(opener.command, [...opener.args, target], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
  return true;
}

/**
 * Opens a one-time link in the browser without putting it on a command line, where
 * every local user could read it (/proc/<pid>/cmdline): the link goes into a small page
 * in a private directory (0700, the page 0600) that forwards to it, and the browser is
 * given that page's path. The page is deleted as soon as its link is used.
 */
export async function openInBrowser(
  host: Pick<Host, 'issueUrl'>,
  open: (target: string) => boolean = openBrowser,
): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), 'porthole-open-'));
  const page = join(dir, 'open-porthole.html');
  const forget = (): void => void rm(dir, { recursive: true, force: true });
  const url = host.issueUrl(forget);
  const escaped = url.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  await writeFile(
    page,
    `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${escaped}"><title>Opening Porthole…</title><a href="${escaped}">Open Porthole</a>\n`,
    { mode: 0o600 },
  );
  if (open(page)) return true;
  forget();
  return false;
}

/** The certificate browser mode serves beyond loopback, kept with the rest of the config. */
async function remoteTls(): Promise<HostTls> {
  const dir = join(defaultConfigDir(), 'browser-mode-tls');
  const tls = await loadOrCreateCertificate(dir);
  if (tls.created) console.log(`Made a self-signed certificate for browser mode in ${dir}.`);
  return tls;
}

/** The app's version, as package.json says. */
function packageVersion(): string {
  const path = join(root, 'package.json');
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

function isLoopbackHost(host: string | undefined): boolean {
  return host === undefined || host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** Starts browser mode and keeps it running until SIGINT/SIGTERM. */
export async function runBrowserMode(options: BrowserModeOptions = {}): Promise<Host> {
  if (options.build !== false && rendererIsStale()) {
    console.log('Building the renderer…');
    await buildRenderer();
  }
  const tls =
    options.allowRemote === true && !isLoopbackHost(options.host) ? await remoteTls() : undefined;
  const core = createCore({ appVersion: packageVersion() });
  let host: Host;
  try {
    host = await startHost({
      staticDir: rendererOutDir,
      services: core.services,
      events: core.events,
      downloads: core.downloads,
      ...(options.port !== undefined && { port: options.port }),
      ...(options.host !== undefined && { host: options.host }),
      ...(options.allowRemote !== undefined && { allowRemote: options.allowRemote }),
      ...(tls !== undefined && { tls }),
    });
  } catch (error) {
    core.dispose();
    throw error;
  }
  if (host.tlsFingerprint !== undefined) {
    console.log(`The certificate's SHA-256 fingerprint: ${host.tlsFingerprint}`);
  }
  const opened = options.open === true && (await openInBrowser(host));
  if (opened) {
    console.log('Porthole is running in browser mode, and opening in your browser.');
  } else {
    if (options.open === true) console.log('(No browser could be opened from here.)');
    console.log(`Porthole is running in browser mode. Open:\n\n  ${host.issueUrl()}\n`);
  }
  console.log(
    'The link works once, for one browser: do not share it. Press Enter for another link, Ctrl+C to stop.',
  );
  if (process.stdin.isTTY) {
    process.stdin.on('data', () => console.log(`\n  ${host.issueUrl()}\n`));
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    process.stdin.pause();
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
