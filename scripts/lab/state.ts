import { lstat, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { LabError, errorMessage } from './exec';
import type { LabInfo, LabRuntimeId } from './types';

export const DEFAULT_LAB_DIR = '/tmp/porthole-lab';

/** The lab directory: PORTHOLE_LAB_DIR, default /tmp/porthole-lab. */
export function labDir(): string {
  return resolve(process.env.PORTHOLE_LAB_DIR ?? DEFAULT_LAB_DIR);
}

/** Downloads and built images survive `down`: $XDG_CACHE_HOME/porthole-lab or ~/.cache/porthole-lab. */
export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return resolve(base, 'porthole-lab');
}

export function labFile(dir = labDir()): string {
  return join(dir, 'lab.json');
}

/** Every path one runtime of the lab owns; all under `<labdir>/<id>`. */
export interface RuntimeDirs {
  base: string;
  root: string;
  state: string;
  socket: string;
  configFile: string;
  cniConfDir: string;
  cniDataDir: string;
  logDir: string;
  logFile: string;
  podLogDir: string;
  runcRoot: string;
  pidFile: string;
}

/** unix socket paths are limited to 108 bytes; containerd adds ".ttrpc" for its ttrpc socket. */
const MAX_SOCKET_PATH = 100;

export function runtimeDirs(id: LabRuntimeId, dir = labDir()): RuntimeDirs {
  const base = join(dir, id);
  const crio = id === 'cri-o';
  const daemon = crio ? 'crio' : 'containerd';
  const dirs: RuntimeDirs = {
    base,
    root: join(base, crio ? 'storage' : 'root'),
    state: join(base, crio ? 'storage-run' : 'state'),
    socket: join(base, `${daemon}.sock`),
    configFile: join(base, crio ? 'crio.conf' : 'config.toml'),
    cniConfDir: join(base, 'cni', 'net.d'),
    cniDataDir: join(base, 'cni', 'ipam'),
    logDir: join(base, 'logs'),
    logFile: join(base, 'logs', `${daemon}.log`),
    podLogDir: join(base, 'pods'),
    runcRoot: join(base, 'runc'),
    pidFile: join(base, `${daemon}.pid`),
  };
  if (Buffer.byteLength(`${dirs.socket}.ttrpc`) > MAX_SOCKET_PATH) {
    throw new LabError(
      `The lab directory ${dir} is too long for a unix socket path (${dirs.socket}).`,
      'Set PORTHOLE_LAB_DIR to a shorter path, e.g. /tmp/porthole-lab.',
    );
  }
  return dirs;
}

/** The directories every runtime's daemon needs to exist before it starts. */
export async function makeRuntimeDirs(dirs: RuntimeDirs, ...more: string[]): Promise<void> {
  for (const dir of [
    dirs.root,
    dirs.state,
    dirs.cniConfDir,
    dirs.cniDataDir,
    dirs.logDir,
    dirs.podLogDir,
    dirs.runcRoot,
    ...more,
  ]) {
    await mkdir(dir, { recursive: true });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads lab.json; undefined when there is none. */
export async function readLabFile(dir = labDir()): Promise<LabInfo | undefined> {
  let text: string;
  try {
    text = await readFile(labFile(dir), 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LabError(`${labFile(dir)} is not valid JSON: ${errorMessage(error)}`);
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.runtimes) || !isRecord(parsed.images)) {
    throw new LabError(`${labFile(dir)} is not a lab description.`);
  }
  return parsed as unknown as LabInfo;
}

/** Writes lab.json atomically (tests may read it while `up` runs). */
export async function writeLabFile(info: LabInfo, dir = labDir()): Promise<void> {
  const target = labFile(dir);
  const temp = `${target}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(info, null, 2)}\n`);
  await rename(temp, target);
}

/**
 * Writes a config file only when its text changed, atomically: the runtimes watch their
 * CNI config dir and would read a half-written file. True when it changed.
 */
export async function writeIfChanged(path: string, text: string): Promise<boolean> {
  if ((await readFile(path, 'utf8').catch(() => undefined)) === text) return false;
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
  return true;
}

export async function removeLabFile(dir = labDir()): Promise<void> {
  await rm(labFile(dir), { force: true });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a process as its arguments, or undefined when it is gone. */
export async function processArgs(pid: number): Promise<string[] | undefined> {
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((arg) => arg !== '');
  } catch {
    return undefined;
  }
}

export async function readPid(pidFile: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(pidFile, 'utf8')).trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One lab command at a time: a lock file beside the lab dir (the lab dir itself is removed
 * by `down`). A lock left by a dead process is taken over.
 */
export async function acquireLock(dir = labDir()): Promise<() => Promise<void>> {
  const lockPath = `${dir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return async () => {
        await rm(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await readPid(lockPath);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
        throw new LabError(
          `Another lab command (pid ${holder}) is running on ${dir}.`,
          `Wait for it to finish, or remove ${lockPath} if that process is not a lab command.`,
        );
      }
      await rm(lockPath, { force: true });
    }
  }
  throw new LabError(`Could not take the lab lock ${lockPath}.`);
}

/**
 * Creates the lab dir, or checks that an existing one is a real directory of ours: it
 * usually sits in /tmp, where someone else could have put a symlink or a directory first.
 */
export async function ensureLabDir(dir = labDir()): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const info = await lstat(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) {
    throw new LabError(
      `${dir} is not a directory owned by this user${info.isSymbolicLink() ? ' (it is a symlink)' : ''}.`,
      'Remove it, or set PORTHOLE_LAB_DIR to another path.',
    );
  }
}
