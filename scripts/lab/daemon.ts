/**
 * What every lab runtime's daemon shares, containerd or CRI-O: start it detached with its
 * log in the lab dir, wait until its CRI is ready, know whether it still runs, stop it by
 * its pid, remove its pods through the CRI, and on `down` undo what it leaves on the host
 * (mounts under its dir, CNI results and bridge, cgroups).
 */
import { spawn } from 'node:child_process';
import { type ServiceError, status } from '@grpc/grpc-js';
import { closeSync, openSync } from 'node:fs';
import { readFile, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RuntimeSpec, daemonName } from './config';
import { withCri } from './cri';
import { LabError, errorMessage, exists, sleep, tail, tryRun, which } from './exec';
import { progress, warn } from './log';
import { type RuntimeDirs, isAlive, processArgs, readPid } from './state';
import { LAB_CGROUP_ROOT, type LabRuntime } from './types';

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** The pid of this runtime's daemon if it is running (checked against its command line). */
export async function runningPid(dirs: RuntimeDirs): Promise<number | undefined> {
  const pid = await readPid(dirs.pidFile);
  if (pid === undefined || !isAlive(pid)) return undefined;
  const args = await processArgs(pid);
  return args !== undefined && args.includes(dirs.configFile) ? pid : undefined;
}

export async function isResponsive(dirs: RuntimeDirs, timeoutMs = 2000): Promise<boolean> {
  if (!(await exists(dirs.socket))) return false;
  try {
    await withCri(dirs.socket, (cri) => cri.version({ timeoutMs }));
    return true;
  } catch {
    return false;
  }
}

/** What the daemon logged since `offset`: its warnings and errors, else its last lines. */
async function logSince(logFile: string, offset: number): Promise<string> {
  let text: string;
  try {
    text = (await readFile(logFile, 'utf8')).slice(offset);
  } catch {
    return '(no log)';
  }
  const problems = text
    .split('\n')
    .filter((line) => /level=(warning|error|fatal|panic)/.test(line))
    .slice(-12);
  return problems.length > 0 ? problems.join('\n') : tail(text, 20);
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

export interface DaemonCommand {
  program: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Starts the daemon in the background, detached, logging to dirs.logFile, and waits until
 * its CRI reports RuntimeReady and NetworkReady; returns its pid. A daemon that does not
 * get there is stopped again (its dirs and log stay for inspection).
 */
export async function startDaemon(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  command: DaemonCommand,
  extraSockets: readonly string[] = [],
): Promise<number> {
  const name = daemonName(spec);
  for (const socket of [dirs.socket, ...extraSockets]) await rm(socket, { force: true });
  const logOffset = await fileSize(dirs.logFile);
  await writeFile(
    dirs.logFile,
    `--- porthole lab: starting ${spec.id} at ${new Date().toISOString()}\n`,
    { flag: 'a' },
  );
  const env: NodeJS.ProcessEnv = { ...command.env };
  delete env.NOTIFY_SOCKET;
  const log = openSync(dirs.logFile, 'a');
  let pid: number | undefined;
  try {
    const child = spawn(command.program, command.args, {
      detached: true,
      stdio: ['ignore', log, log],
      env,
      cwd: dirs.base,
    });
    child.on('error', () => undefined); // reported below: no pid
    pid = child.pid;
    child.unref();
  } finally {
    closeSync(log);
  }
  if (pid === undefined) throw new LabError(`Could not start ${command.program}.`);
  await writeFile(dirs.pidFile, `${pid}\n`);
  progress(`${spec.id}: started ${name} (pid ${pid}), waiting for ${dirs.socket}`);
  try {
    await waitReady(spec, dirs, pid, logOffset);
  } catch (error) {
    await stopProcess(`${spec.id} ${name}`, pid);
    throw error;
  }
  return pid;
}

async function waitReady(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  pid: number,
  logOffset: number,
): Promise<void> {
  const name = daemonName(spec);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = 'the socket did not appear';
  while (Date.now() < deadline) {
    if (!isAlive(pid)) {
      throw new LabError(
        `${spec.id}: ${name} exited during start-up. From ${dirs.logFile}:`,
        await logSince(dirs.logFile, logOffset),
      );
    }
    if (await exists(dirs.socket)) {
      try {
        const { conditions } = await withCri(dirs.socket, (cri) =>
          cri.runtimeInfo({ timeoutMs: 2000 }),
        );
        const notReady = conditions.filter((c) => !c.status);
        if (conditions.length > 0 && notReady.length === 0) return;
        last =
          notReady.map((c) => `${c.type}: ${c.reason} ${c.message}`.trim()).join('; ') ||
          'no conditions';
      } catch (error) {
        last = errorMessage(error);
        if ((error as Partial<ServiceError>).code === status.UNIMPLEMENTED) {
          throw new LabError(
            `${spec.id}: ${name} runs without its CRI (${last}). From ${dirs.logFile}:`,
            await logSince(dirs.logFile, logOffset),
          );
        }
      }
    }
    await sleep(150);
  }
  throw new LabError(
    `${spec.id}: ${name} did not become ready within ${READY_TIMEOUT_MS / 1000} s (${last}). From ${dirs.logFile}:`,
    await logSince(dirs.logFile, logOffset),
  );
}

/** What lab.json says of any runtime: its version as the CRI reports it, socket, log… */
export async function describeDaemon(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  pid: number,
): Promise<
  Pick<
    LabRuntime,
    | 'id'
    | 'version'
    | 'versionFull'
    | 'endpoint'
    | 'socketPath'
    | 'pid'
    | 'logFile'
    | 'podLogDir'
    | 'configFile'
    | 'network'
  >
> {
  const version = await withCri(dirs.socket, (cri) => cri.version({ timeoutMs: 5000 }));
  return {
    id: spec.id,
    version: shortVersion(version.runtimeVersion),
    versionFull: version.runtimeVersion,
    endpoint: `unix://${dirs.socket}`,
    socketPath: dirs.socket,
    pid,
    logFile: dirs.logFile,
    podLogDir: dirs.podLogDir,
    configFile: dirs.configFile,
    network: { ...spec.network },
  };
}

/** "1.6.20~ds1" → "1.6.20", "v2.1.9+unknown" → "2.1.9". */
export function shortVersion(full: string): string {
  return /(\d+\.\d+\.\d+)/.exec(full)?.[1] ?? full;
}

/**
 * Stops and removes every pod through the CRI, so CNI and mounts are torn down properly.
 * Returns the ids of the pods it saw (their cgroups may be left to remove).
 */
export async function removePods(spec: RuntimeSpec, dirs: RuntimeDirs): Promise<string[]> {
  const seen: string[] = [];
  try {
    await withCri(dirs.socket, async (cri) => {
      const pods = await cri.listPods();
      if (pods.length > 0) progress(`${spec.id}: removing ${pods.length} pod(s)`);
      for (const pod of pods) {
        seen.push(pod.id);
        try {
          await cri.stopPod(pod.id, 0, { timeoutMs: 30_000 });
          await cri.removePod(pod.id, { timeoutMs: 30_000 });
        } catch (error) {
          warn(
            `${spec.id}: could not remove pod ${pod.namespace}/${pod.name} (${pod.id}): ${errorMessage(error)}`,
          );
        }
      }
    });
  } catch (error) {
    warn(`${spec.id}: could not list pods: ${errorMessage(error)}`);
  }
  return seen;
}

async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

/** SIGTERM, then SIGKILL after a timeout. */
export async function stopProcess(label: string, pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await waitGone(pid, STOP_TIMEOUT_MS)) return;
  warn(`${label} (pid ${pid}) ignored SIGTERM for ${STOP_TIMEOUT_MS / 1000} s: sending SIGKILL`);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitGone(pid, 5000);
}

/** Mount points (from /proc/self/mountinfo) with their filesystem types. */
async function mounts(): Promise<{ point: string; fstype: string }[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  const unescape = (s: string) =>
    s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
  const result: { point: string; fstype: string }[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const fields = line.split(' ');
    const sep = fields.indexOf('-');
    const point = fields[4];
    const fstype = sep >= 0 ? fields[sep + 1] : undefined;
    if (point !== undefined && fstype !== undefined)
      result.push({ point: unescape(point), fstype });
  }
  return result;
}

async function mountsUnder(dir: string): Promise<string[]> {
  return (await mounts())
    .map((m) => m.point)
    .filter((p) => p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/** Unmounts everything under `dir`; throws (naming what is left) when it can't. */
export async function unmountUnder(spec: RuntimeSpec, dir: string): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const points = await mountsUnder(dir);
    if (points.length === 0) return;
    for (const point of points) {
      if ((await tryRun('umount', [point])) === undefined)
        await tryRun('umount', ['--lazy', point]);
    }
  }
  const left = await mountsUnder(dir);
  if (left.length > 0) {
    throw new LabError(
      `${spec.id}: could not unmount everything under ${dir}; not removing it.`,
      left.join('\n'),
    );
  }
}

/** Processes whose command line mentions `needle`, with their arguments. */
export async function processesMentioning(
  needle: string,
): Promise<{ pid: number; args: string[] }[]> {
  const found: { pid: number; args: string[] }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const args = await processArgs(pid);
    if (args?.some((a) => a.includes(needle))) found.push({ pid, args });
  }
  return found;
}

/**
 * Kills and deletes what runc still runs in this runtime's own runc root: containers are
 * the dirs with a state.json, directly there (CRI-O) or one level down per namespace
 * (containerd's `k8s.io`).
 */
export async function removeRuncContainers(dirs: RuntimeDirs, runc: string): Promise<void> {
  const visit = async (root: string, depth: number): Promise<void> => {
    for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      if (await exists(join(root, entry.name, 'state.json'))) {
        progress(`cleanup: runc delete --force ${entry.name.slice(0, 12)}`);
        await tryRun(runc, ['--root', root, 'delete', '--force', entry.name], {
          timeoutMs: 15_000,
        });
      } else if (depth === 0) {
        await visit(join(root, entry.name), 1);
      }
    }
  };
  await visit(dirs.runcRoot, 0);
}

/**
 * What CNI leaves outside our dirs: its cached results for our network (and for the
 * loopback network of the given sandboxes), and our bridge.
 */
export async function removeNetworkLeftovers(
  spec: RuntimeSpec,
  sandboxes: ReadonlySet<string>,
): Promise<void> {
  const results = '/var/lib/cni/results';
  for (const file of await readdir(results).catch(() => [] as string[])) {
    const loopback = /^cni-loopback-([0-9a-f]{64})-lo$/.exec(file)?.[1];
    if (
      file.startsWith(`${spec.network.name}-`) ||
      (loopback !== undefined && sandboxes.has(loopback))
    ) {
      await rm(join(results, file), { force: true });
    }
  }
  const ip = await which('ip');
  if (ip !== undefined && (await exists(`/sys/class/net/${spec.network.bridge}`))) {
    await tryRun(ip, ['link', 'delete', spec.network.bridge]);
  }
}

/** The mount points of every cgroup hierarchy (v1 controllers and the v2 tree). */
async function cgroupRoots(): Promise<string[]> {
  return (await mounts())
    .filter((m) => m.fstype === 'cgroup' || m.fstype === 'cgroup2')
    .map((m) => m.point);
}

/** Removes a tree of empty cgroups, deepest first; a cgroup still in use stays. */
async function removeCgroupTree(dir: string): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) await removeCgroupTree(join(dir, entry.name));
  }
  await rmdir(dir).catch(() => undefined);
}

/**
 * Removes (empty) cgroups, in every hierarchy, at these paths relative to the cgroup root:
 * e.g. one runtime's `/porthole-lab/<id>`, or the lab's whole `/porthole-lab`, with the
 * empty cgroups below them; with `subtree: false` only the cgroup itself, when empty.
 */
export async function removeCgroups(
  paths: readonly string[],
  { subtree = true }: { subtree?: boolean } = {},
): Promise<void> {
  for (const root of await cgroupRoots()) {
    for (const path of paths) {
      if (subtree) await removeCgroupTree(join(root, path));
      else await rmdir(join(root, path)).catch(() => undefined);
    }
  }
}

/** The cgroup parent of one runtime's test pods (`podSandboxConfig` in test/support/lab). */
export function runtimeCgroup(spec: Pick<RuntimeSpec, 'id'>): string {
  return `${LAB_CGROUP_ROOT}/${spec.id}`;
}
