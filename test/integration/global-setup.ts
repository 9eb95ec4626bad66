/**
 * Makes `npm test` self-sufficient: installs the test packages that are missing (OpenSSH,
 * Chromium), and if the lab is not running, brings it up for this run and takes it down
 * afterwards. A lab that was already running (CI's, or a developer's
 * `npm run lab -- up`) is used as it is and left running.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { readLab } from '../support/lab';
import { labCoverage } from '../support/summary-reporter';
import { ensureTestPackages } from '../support/system-packages';

const root = resolve(import.meta.dirname, '../..');

function lab(command: 'up' | 'down'): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/lab/cli.ts', command], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', fail);
    child.once('exit', (code) =>
      code === 0 ? done() : fail(new Error(`npm run lab -- ${command} failed (exit ${code})`)),
    );
  });
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  await ensureTestPackages();
  let started = false;
  try {
    readLab();
  } catch {
    await lab('up');
    started = true;
  }
  // Said at the start too: a runtime the suites leave out is never a silent pass.
  for (const line of labCoverage()) process.stdout.write(`${line}\n`);
  return started ? () => lab('down') : undefined;
}
