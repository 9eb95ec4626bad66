/**
 * A containerd of the lab: write its files, start it (daemon.ts), import the images with
 * its `ctr`, describe it, and on `down` clean up after it (shims, runc containers, mounts,
 * network leftovers, its directory).
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  type RuntimeBinaries,
  type RuntimeSpec,
  cniConflistName,
  renderCniConflist,
  renderContainerdConfig,
} from './config';
import {
  describeDaemon,
  processesMentioning,
  removeNetworkLeftovers,
  removeRuncContainers,
  startDaemon,
  stopProcess,
  unmountUnder,
} from './daemon';
import { run } from './exec';
import { importArchive } from './import';
import { progress } from './log';
import type { BuiltImage } from './oci';
import { type RuntimeDirs, makeRuntimeDirs, writeIfChanged } from './state';
import type { LabRuntime } from './types';

/** Writes config.toml and the CNI conflist; true when the config differs from before. */
export async function prepareRuntime(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
): Promise<boolean> {
  await makeRuntimeDirs(dirs);
  const config = renderContainerdConfig({ spec, dirs, bins });
  const conflist = renderCniConflist(spec.network, dirs);
  const conflistPath = join(dirs.cniConfDir, cniConflistName(spec.network));
  const configChanged = await writeIfChanged(dirs.configFile, config);
  const conflistChanged = await writeIfChanged(conflistPath, conflist);
  return configChanged || conflistChanged;
}

/** Starts containerd in the background (see startDaemon); returns its pid. */
export async function startContainerd(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The matching shim first on PATH (runtime_path also names it).
    PATH: `${dirname(bins.shim)}:${process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'}`,
  };
  delete env.CONTAINERD_ADDRESS;
  delete env.CONTAINERD_NAMESPACE;
  return startDaemon(
    spec,
    dirs,
    { program: bins.containerd, args: ['--config', dirs.configFile], env },
    [`${dirs.socket}.ttrpc`],
  );
}

/** Imports each image unless the runtime already has it at the same digest. */
export async function importImages(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
  images: readonly BuiltImage[],
): Promise<void> {
  const listed = (
    await run(bins.ctr, ['--address', dirs.socket, '--namespace', 'k8s.io', 'images', 'ls'])
  ).stdout;
  const have = new Map<string, string>();
  for (const line of listed.split('\n').slice(1)) {
    const [ref, , digest] = line.trim().split(/\s+/);
    if (ref !== undefined && digest !== undefined) have.set(ref, digest);
  }
  for (const image of images) {
    if (have.get(image.ref) === image.manifestDigest) continue;
    progress(`${spec.id}: importing ${image.ref}`);
    await importArchive({ kind: 'ctr', ctr: bins.ctr, socketPath: dirs.socket }, image);
  }
}

export async function describeRuntime(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: RuntimeBinaries,
  pid: number,
): Promise<LabRuntime> {
  return {
    ...(await describeDaemon(spec, dirs, pid)),
    kind: 'containerd',
    root: dirs.root,
    state: dirs.state,
    importer: { kind: 'ctr', ctr: bins.ctr, socketPath: dirs.socket },
  };
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
  await unmountUnder(spec, dirs.base);
  // containerd's loopback network has CNI results for our sandboxes too.
  const sandboxes = new Set<string>();
  for (const base of [dirs.root, dirs.state]) {
    const dir = join(base, 'io.containerd.grpc.v1.cri', 'sandboxes');
    for (const id of await readdir(dir).catch(() => [] as string[])) sandboxes.add(id);
  }
  await removeNetworkLeftovers(spec, sandboxes);
  await rm(dirs.base, { recursive: true, force: true });
}
