/**
 * `npm start`: builds the app and launches the Electron shell. Where the Electron binary
 * is missing it tries to fetch it once (electron's own install script, with a short
 * timeout); where that fails (offline, no display) it says so in one line and starts
 * browser mode instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildElectron, buildRenderer, root } from './build';
import { runBrowserMode } from './web';

const electronDir = join(root, 'node_modules/electron');
const installTimeoutMs = 45_000;

/** The Electron executable, if electron's install script has put it in place. */
export function electronBinary(): string | undefined {
  try {
    const relative = readFileSync(join(electronDir, 'path.txt'), 'utf8').trim();
    const binary = join(electronDir, 'dist', relative);
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

/** Runs electron's install script (denied at npm install time, allowed here on purpose). */
function installElectron(): { ok: true } | { ok: false; reason: string } {
  const result = spawnSync(process.execPath, [join(electronDir, 'install.js')], {
    cwd: electronDir,
    encoding: 'utf8',
    timeout: installTimeoutMs,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.error !== undefined) {
    const timedOut = (result.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
    return {
      ok: false,
      reason: timedOut ? `no answer within ${installTimeoutMs / 1000} s` : result.error.message,
    };
  }
  if (result.status !== 0) {
    const output = `${result.stderr}\n${result.stdout}`;
    const line =
      /(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET)[^\n]*/.exec(output)?.[0] ??
      output
        .split('\n')
        .find((l) => /error/i.test(l))
        ?.trim() ??
      `exit code ${result.status}`;
    return { ok: false, reason: line.slice(0, 160) };
  }
  return electronBinary() === undefined
    ? { ok: false, reason: 'the binary is still missing' }
    : { ok: true };
}

function hasDisplay(): boolean {
  return (
    process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
  );
}

async function main(): Promise<void> {
  console.log('Building Porthole…');
  await buildRenderer();
  await buildElectron();

  let binary = electronBinary();
  let fallbackReason: string | undefined;
  if (binary === undefined) {
    console.log('The Electron binary is not installed; fetching it…');
    const installed = installElectron();
    if (installed.ok) binary = electronBinary();
    else fallbackReason = `Electron could not be downloaded (${installed.reason})`;
  }
  if (fallbackReason === undefined && !hasDisplay()) {
    fallbackReason = 'There is no display to open the Electron window on';
  }
  if (binary === undefined || fallbackReason !== undefined) {
    console.log(`${fallbackReason ?? 'Electron is not available'}: starting browser mode instead.`);
    await runBrowserMode({ open: true, build: false });
    return;
  }

  const args = ['.'];
  // Chromium refuses to run as root with its sandbox on (containers, CI): say so, then comply.
  if (process.getuid?.() === 0) {
    console.warn('Running as root: Chromium needs --no-sandbox here, which weakens isolation.');
    args.push('--no-sandbox');
  }
  const child = spawn(binary, args, { cwd: root, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 0 : 1);
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    console.error(
      `Porthole could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exitCode = 1;
  });
}
