/**
 * One lab runtime's life: write its files, start containerd detached, wait until its CRI
 * is ready, import the images, describe it, and on `down` stop it and clean up after it
 * (pods, shims, runc containers, mounts, network leftovers, its directory).
 */
import { spawn } from 'node:child_process';
import { type ServiceError, status } from '@grpc/grpc-js';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  type RuntimeBinaries,
  type RuntimeSpec,
  cniConflistName,
  renderCniConflist,
  renderContainerdConfig,
} from './config';
import { withCri } from './cri';
import { LabError, errorMessage, exists, run, sleep, tail, tryRun, which } from './exec';
import { progress, warn } from './log';
import type { BuiltImage } from './oci';
import { type RuntimeDirs, isAlive, processArgs, readPid } from './state';
import { LAB_CGROUP_ROOT, type LabRuntime } from './types';

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** Writes config.toml and the CNI conflist; true when the config differs from before. */
export async function prepareRuntime(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
): Promise<boolean> {
  for (const dir of [
    dirs.root,
    dirs.state,
    dirs.cniConfDir,
    dirs.cniDataDir,
    dirs.logDir,
    dirs.podLogDir,
    dirs.runcRoot,
  ]) {
    await mkdir(dir, { recursive: true });
  }
  const config = renderContainerdConfig({ spec, dirs, bins });
  const conflist = renderCniConflist(spec.network, dirs);
  const conflistPath = join(dirs.cniConfDir, cniConflistName(spec.network));
  const before = [
    await readFile(dirs.configFile, 'utf8').catch(() => ''),
    await readFile(conflistPath, 'utf8').catch(() => ''),
  ];
  await writeFile(dirs.configFile, config);
  await writeFile(conflistPath, conflist);
  return before[0] !== config || before[1] !== conflist;
}

/** The pid of this runtime's containerd if it is running (checked against its command line). */
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

/** What containerd logged since `offset`: its warnings and errors, else its last lines. */
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

/** Starts containerd in the background, detached, logging to dirs.logFile; returns its pid. */
export async function startContainerd(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
): Promise<number> {
  await rm(dirs.socket, { force: true });
  await rm(`${dirs.socket}.ttrpc`, { force: true });
  const logOffset = await fileSize(dirs.logFile);
  await writeFile(
    dirs.logFile,
    `--- porthole lab: starting ${spec.id} at ${new Date().toISOString()}\n`,
    {
      flag: 'a',
    },
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The matching shim first on PATH (runtime_path also names it).
    PATH: `${dirname(bins.shim)}:${process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'}`,
  };
  delete env.NOTIFY_SOCKET;
  delete env.CONTAINERD_ADDRESS;
  delete env.CONTAINERD_NAMESPACE;
  const log = openSync(dirs.logFile, 'a');
  let pid: number | undefined;
  try {
    const child = spawn(bins.containerd, ['--config', dirs.configFile], {
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
  if (pid === undefined) throw new LabError(`Could not start ${bins.containerd}.`);
  await writeFile(dirs.pidFile, `${pid}\n`);
  progress(`${spec.id}: started containerd (pid ${pid}), waiting for ${dirs.socket}`);
  try {
    await waitReady(spec, dirs, pid, logOffset);
  } catch (error) {
    // Leave no half-started daemon behind; its dirs and log stay for inspection.
    await stopProcess(`${spec.id} containerd`, pid);
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
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = 'the socket did not appear';
  while (Date.now() < deadline) {
    if (!isAlive(pid)) {
      throw new LabError(
        `${spec.id}: containerd exited during start-up. From ${dirs.logFile}:`,
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
            `${spec.id}: containerd runs without its CRI plugin (${last}). From ${dirs.logFile}:`,
            await logSince(dirs.logFile, logOffset),
          );
        }
      }
    }
    await sleep(150);
  }
  throw new LabError(
    `${spec.id}: containerd did not become ready within ${READY_TIMEOUT_MS / 1000} s (${last}). From ${dirs.logFile}:`,
    await logSince(dirs.logFile, logOffset),
  );
}

function ctrArgs(dirs: RuntimeDirs, ...args: string[]): string[] {
  return ['--address', dirs.socket, '--namespace', 'k8s.io', ...args];
}

/** Imports each image unless the runtime already has it at the same digest. */
export async function importImages(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
  images: readonly BuiltImage[],
): Promise<void> {
  const listed = (await run(bins.ctr, ctrArgs(dirs, 'images', 'ls'))).stdout;
  const have = new Map<string, string>();
  for (const line of listed.split('\n').slice(1)) {
    const [ref, , digest] = line.trim().split(/\s+/);
    if (ref !== undefined && digest !== undefined) have.set(ref, digest);
  }
  for (const image of images) {
    if (have.get(image.ref) === image.manifestDigest) continue;
    progress(`${spec.id}: importing ${image.ref}`);
    await run(bins.ctr, ctrArgs(dirs, 'images', 'import', image.tarPath), { timeoutMs: 120_000 });
  }
}

/** "1.6.20~ds1" → "1.6.20", "v2.1.9+unknown" → "2.1.9". */
export function shortVersion(full: string): string {
  return /(\d+\.\d+\.\d+)/.exec(full)?.[1] ?? full;
}

export async function describeRuntime(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
  pid: number,
): Promise<LabRuntime> {
  const version = await withCri(dirs.socket, (cri) => cri.version({ timeoutMs: 5000 }));
  return {
    id: spec.id,
    version: shortVersion(version.runtimeVersion),
    versionFull: version.runtimeVersion,
    endpoint: `unix://${dirs.socket}`,
    socketPath: dirs.socket,
    pid,
    logFile: dirs.logFile,
    root: dirs.root,
    state: dirs.state,
    podLogDir: dirs.podLogDir,
    ctr: bins.ctr,
    configFile: dirs.configFile,
    network: { ...spec.network },
  };
}

/** Stops and removes every pod through the CRI, so CNI and mounts are torn down properly. */
export async function removePods(spec: RuntimeSpec, dirs: RuntimeDirs): Promise<void> {
  try {
    await withCri(dirs.socket, async (cri) => {
      const pods = await cri.listPods();
      if (pods.length > 0) progress(`${spec.id}: removing ${pods.length} pod(s)`);
      for (const pod of pods) {
        try {
          await cri.stopPod(pod.id, { timeoutMs: 30_000 });
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

async function unmountAll(dir: string): Promise<string[]> {
  for (let round = 0; round < 3; round++) {
    const points = await mountsUnder(dir);
    if (points.length === 0) return [];
    for (const point of points) {
      if ((await tryRun('umount', [point])) === undefined)
        await tryRun('umount', ['--lazy', point]);
    }
  }
  return mountsUnder(dir);
}

/** Processes whose command line mentions `needle`, with their arguments. */
async function processesMentioning(needle: string): Promise<{ pid: number; args: string[] }[]> {
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

/** Kills and deletes what runc still runs for this runtime (it has its own runc root). */
async function removeRuncContainers(dirs: RuntimeDirs, runc: string): Promise<void> {
  let namespaces: string[];
  try {
    namespaces = await readdir(dirs.runcRoot);
  } catch {
    return;
  }
  for (const ns of namespaces) {
    const root = join(dirs.runcRoot, ns);
    let ids: string[];
    try {
      ids = await readdir(root);
    } catch {
      continue;
    }
    for (const id of ids) {
      progress(`cleanup: runc delete --force ${id.slice(0, 12)}`);
      await tryRun(runc, ['--root', root, 'delete', '--force', id], { timeoutMs: 15_000 });
    }
  }
}

/** The shim sockets (in /run/containerd/s) of this runtime's tasks, from their bundles. */
async function shimSockets(dirs: RuntimeDirs): Promise<string[]> {
  const sockets: string[] = [];
  const tasks = join(dirs.state, 'io.containerd.runtime.v2.task');
  for (const ns of await readdir(tasks).catch(() => [] as string[])) {
    for (const id of await readdir(join(tasks, ns)).catch(() => [] as string[])) {
      const address = await readFile(join(tasks, ns, id, 'address'), 'utf8').catch(() => '');
      const path = address.trim().replace(/^unix:\/\//, '');
      if (path.startsWith('/run/containerd/s/')) sockets.push(path);
    }
  }
  return sockets;
}

/**
 * After containerd has stopped: whatever it left behind. Containers first (so nothing
 * is orphaned), then shims, mounts, CNI leftovers and finally the runtime's directory.
 */
export async function cleanupRuntime(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  runc: string,
): Promise<void> {
  await removeRuncContainers(dirs, runc);
  const sockets = await shimSockets(dirs);
  for (const shim of await processesMentioning(dirs.socket)) {
    const name = basename(shim.args[0] ?? '');
    if (!name.startsWith('containerd-shim')) continue;
    progress(`cleanup: stopping leftover ${name} (pid ${shim.pid})`);
    await stopProcess(name, shim.pid);
  }
  for (const socket of sockets) await rm(socket, { force: true });

  const left = await unmountAll(dirs.base);
  if (left.length > 0) {
    throw new LabError(
      `${spec.id}: could not unmount everything under ${dirs.base}; not removing it.`,
      left.join('\n'),
    );
  }
  // CNI's result cache lives outside our dirs: entries of our own network, and of
  // containerd's loopback network for our sandboxes.
  const sandboxes = new Set<string>();
  for (const base of [dirs.root, dirs.state]) {
    const dir = join(base, 'io.containerd.grpc.v1.cri', 'sandboxes');
    for (const id of await readdir(dir).catch(() => [] as string[])) sandboxes.add(id);
  }
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
  await rm(dirs.base, { recursive: true, force: true });
}

/** Removes the (empty) cgroups that lab pods used, in every cgroup hierarchy. */
export async function removeLabCgroups(): Promise<void> {
  const roots = (await mounts())
    .filter((m) => m.fstype === 'cgroup' || m.fstype === 'cgroup2')
    .map((m) => join(m.point, LAB_CGROUP_ROOT));
  const removeTree = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) await removeTree(join(dir, entry.name));
    await rmdir(dir).catch(() => undefined);
  };
  for (const root of roots) await removeTree(root);
}
