/**
 * The Debian packages the suites need besides the lab's runtimes, installed on demand so
 * `npm test` works on a fresh machine: OpenSSH for the SSH suites, Chromium for e2e.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Package → a file it installs, to tell whether it is there without asking dpkg. */
const testPackages: Readonly<Record<string, string>> = {
  'openssh-server': '/usr/sbin/sshd',
  'openssh-client': '/usr/bin/ssh-keygen',
  chromium: '/usr/bin/chromium',
};

let installing: Promise<void> | undefined;

/** Installs whichever test packages are missing. Once per process: dpkg has one lock. */
export function ensureTestPackages(): Promise<void> {
  installing ??= install();
  return installing;
}

async function install(): Promise<void> {
  const missing = Object.entries(testPackages)
    .filter(([, file]) => !existsSync(file))
    .map(([name]) => name);
  if (missing.length === 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-qq'], { env, timeout: 300_000 });
  await run('apt-get', ['install', '-y', '-qq', ...missing], { env, timeout: 600_000 });
}
