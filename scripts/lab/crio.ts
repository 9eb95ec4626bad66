/**
 * The lab's CRI-O: find the user's `crio` (it is not in Debian), write its files, start it
 * (daemon.ts) with Debian's conmon and runc, import the images straight into its storage,
 * describe it, and on `down` clean up what it leaves (conmon, runc containers, mounts, the
 * bridge, cgroups). See /scripts/lab/README.md for why each setting is what it is.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  type RuntimeSpec,
  CRIO_STORAGE_DRIVER,
  cniConflistName,
  crioFiles,
  renderCniConflist,
  renderCrioConfig,
  renderRegistriesConf,
  renderSignaturePolicy,
  renderStorageConf,
} from './config';
import { withCri } from './cri';
import {
  describeDaemon,
  processesMentioning,
  removeCgroups,
  removeNetworkLeftovers,
  removeRuncContainers,
  runtimeCgroup,
  startDaemon,
  stopProcess,
  unmountUnder,
} from './daemon';
import { LabError, errorMessage, isExecutable, run, tail, which } from './exec';
import { importArchive } from './import';
import { progress } from './log';
import type { BuiltImage } from './oci';
import { type RuntimeDirs, makeRuntimeDirs, writeIfChanged } from './state';
import type { LabCrioBinaries, LabImageImporter, LabRuntime } from './types';

/** Debian 12's conmon (2.1.6; unstable's 2.1.13 needs glibc 2.38) and runc. */
export const CONMON = '/usr/bin/conmon';

/** The setting that names the directory holding `crio` (and `pinns`, `copyimg` beside it). */
export const CRIO_DIR_VARIABLE = 'PORTHOLE_CRIO_DIR';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** The CRI-O programs found, and where from (for the progress line). */
export interface CrioPrograms {
  crio: string;
  pinns: string;
  /** CRI-O's image importer; undefined when Debian's skopeo must do it. */
  copyimg?: string;
  from: string;
}

export type CrioLookup = { found: true; programs: CrioPrograms } | { found: false; reason: string };

/**
 * `<checkout>/../shared/bin/cri-o`: the copy beside the project. In a linked git worktree
 * the checkout the project lives in is the main one, so its neighbour counts too.
 */
async function besideTheProject(repoRoot: string): Promise<string[]> {
  const dirs = [resolve(repoRoot, '..', 'shared', 'bin', 'cri-o')];
  const gitFile = await readFile(join(repoRoot, '.git'), 'utf8').catch(() => undefined);
  const gitDir = gitFile === undefined ? undefined : /^gitdir:\s*(.+)$/m.exec(gitFile)?.[1];
  if (gitDir !== undefined) {
    const absolute = isAbsolute(gitDir) ? gitDir : resolve(repoRoot, gitDir);
    // <main>/.git/worktrees/<name> → <main>
    const main = resolve(absolute, '..', '..', '..');
    dirs.push(resolve(main, '..', 'shared', 'bin', 'cri-o'));
  }
  return [...new Set(dirs)];
}

async function programsIn(dir: string, from: string): Promise<CrioPrograms | undefined> {
  const crio = join(dir, 'crio');
  if (!(await isExecutable(crio))) return undefined;
  const pinns = (await isExecutable(join(dir, 'pinns')))
    ? join(dir, 'pinns')
    : await which('pinns');
  if (pinns === undefined) {
    throw new LabError(`${crio} has no pinns beside it or on PATH; CRI-O needs it for pods.`);
  }
  const copyimg = (await isExecutable(join(dir, 'copyimg')))
    ? join(dir, 'copyimg')
    : await which('copyimg');
  return { crio, pinns, ...(copyimg !== undefined && { copyimg }), from };
}

/**
 * Where `crio` comes from, in this order: the setting PORTHOLE_CRIO_DIR (a directory; set
 * but without a crio is an error), `crio` on PATH, then the copy beside the project.
 */
export async function findCrio({
  env = process.env,
  repoRoot = REPO_ROOT,
}: { env?: NodeJS.ProcessEnv; repoRoot?: string } = {}): Promise<CrioLookup> {
  const setting = env[CRIO_DIR_VARIABLE];
  if (setting !== undefined && setting !== '') {
    const programs = await programsIn(resolve(setting), `${CRIO_DIR_VARIABLE}=${setting}`);
    if (programs === undefined) {
      throw new LabError(`${CRIO_DIR_VARIABLE}=${setting} holds no executable crio.`);
    }
    return { found: true, programs };
  }
  const onPath = await which('crio', env);
  if (onPath !== undefined) {
    const programs = await programsIn(dirname(onPath), 'PATH');
    if (programs !== undefined) return { found: true, programs };
  }
  const beside = await besideTheProject(repoRoot);
  for (const dir of beside) {
    const programs = await programsIn(dir, dir);
    if (programs !== undefined) return { found: true, programs };
  }
  return {
    found: false,
    reason: `no crio binary (${CRIO_DIR_VARIABLE} is not set, none on PATH, none in ${beside.join(' or ')})`,
  };
}

export function crioBinaries(
  programs: CrioPrograms,
  runc: string,
  cniBinDir: string,
): LabCrioBinaries {
  return { crio: programs.crio, pinns: programs.pinns, conmon: CONMON, runc, cniBinDir };
}

export function crioImporter(
  dirs: RuntimeDirs,
  programs: Pick<CrioPrograms, 'copyimg'>,
  skopeo: string,
): LabImageImporter {
  const files = crioFiles(dirs);
  return {
    kind: programs.copyimg !== undefined ? 'copyimg' : 'skopeo',
    program: programs.copyimg ?? skopeo,
    storageDriver: CRIO_STORAGE_DRIVER,
    graphRoot: files.graphRoot,
    runRoot: files.runRoot,
    signaturePolicy: files.signaturePolicy,
  };
}

/** Checks that the binary runs here (it links libsqlite3, for one); its version line. */
export async function crioVersion(crio: string): Promise<string> {
  try {
    return tail((await run(crio, ['--version'], { timeoutMs: 10_000 })).stdout, 30)
      .split('\n')
      .filter((line) => /^crio version|^\s*Version:/i.test(line))
      .join(' ')
      .trim();
  } catch (error) {
    throw new LabError(
      `${crio} does not run here: ${errorMessage(error)}`,
      `${error instanceof LabError ? (error.detail ?? '') : ''}\nCRI-O 1.36 links libsqlite3 (Debian: apt-get install libsqlite3-0).`.trim(),
    );
  }
}

export interface CrioStart {
  spec: RuntimeSpec;
  dirs: RuntimeDirs;
  bins: LabCrioBinaries;
  /** Default true; CRI-O's own default is false. */
  enablePodEvents?: boolean;
}

/** Writes crio.conf and its companions; true when any of them differs from before. */
export async function prepareCrio(options: CrioStart): Promise<boolean> {
  const { spec, dirs } = options;
  const files = crioFiles(dirs);
  await makeRuntimeDirs(
    dirs,
    files.stateDir,
    files.namespacesDir,
    files.exitsDir,
    files.attachDir,
    files.keysDir,
    files.authDir,
    files.signaturePolicyDir,
  );
  const wanted: [string, string][] = [
    [
      dirs.configFile,
      renderCrioConfig({
        spec,
        dirs,
        bins: options.bins,
        ...(options.enablePodEvents !== undefined && { enablePodEvents: options.enablePodEvents }),
      }),
    ],
    [files.storageConf, renderStorageConf(dirs)],
    [files.registriesConf, renderRegistriesConf()],
    [files.signaturePolicy, renderSignaturePolicy()],
    [join(dirs.cniConfDir, cniConflistName(spec.network)), renderCniConflist(spec.network, dirs)],
  ];
  let changed = false;
  for (const [path, text] of wanted) changed = (await writeIfChanged(path, text)) || changed;
  return changed;
}

/** Starts crio in the background (see startDaemon); returns its pid. */
export async function startCrio(options: CrioStart): Promise<number> {
  const { spec, dirs, bins } = options;
  const files = crioFiles(dirs);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // containers/storage and containers/image read these instead of /etc/containers.
    CONTAINERS_STORAGE_CONF: files.storageConf,
    CONTAINERS_REGISTRIES_CONF: files.registriesConf,
  };
  return startDaemon(spec, dirs, {
    program: bins.crio,
    args: ['--config', dirs.configFile],
    env,
  });
}

/** Imports each image unless CRI-O already has it at the same manifest digest. */
export async function importCrioImages(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  importer: LabImageImporter,
  images: readonly BuiltImage[],
): Promise<void> {
  for (const image of images) {
    const have = await withCri(dirs.socket, (cri) => cri.imageStatus(image.ref));
    const name = image.ref.replace(/:[^:/]+$/, '');
    if (have?.repoDigests.includes(`${name}@${image.manifestDigest}`) === true) continue;
    progress(`${spec.id}: importing ${image.ref}`);
    await importArchive(importer, image);
  }
}

export async function describeCrio(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  bins: LabCrioBinaries,
  importer: LabImageImporter,
  pid: number,
): Promise<LabRuntime> {
  const files = crioFiles(dirs);
  return {
    ...(await describeDaemon(spec, dirs, pid)),
    kind: 'cri-o',
    root: files.graphRoot,
    state: files.runRoot,
    importer,
    crio: bins,
  };
}

/**
 * Stops a CRI-O the lab did not record in lab.json (a test's private one): SIGTERM by pid,
 * then the same cleanup as `down`.
 */
export async function stopCrio(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  pid: number,
  runc: string,
): Promise<void> {
  await stopProcess(`${spec.id} crio`, pid);
  await cleanupCrio(spec, dirs, runc);
}

/**
 * After crio has stopped: containers keep running under conmon, so runc's containers go
 * first (conmon then exits), then any conmon left, mounts, CNI leftovers, the cgroups of
 * the runtime's pods, and the runtime's directory.
 */
export async function cleanupCrio(
  spec: RuntimeSpec,
  dirs: RuntimeDirs,
  runc: string,
): Promise<void> {
  await removeRuncContainers(dirs, runc);
  for (const monitor of await processesMentioning(dirs.base)) {
    if (!(monitor.args[0] ?? '').endsWith('conmon')) continue;
    progress(`cleanup: stopping leftover conmon (pid ${monitor.pid})`);
    await stopProcess('conmon', monitor.pid);
  }
  await unmountUnder(spec, dirs.base);
  await removeNetworkLeftovers(spec, new Set());
  // What CRI-O leaves after a crash (it removes them itself with each pod): the cgroups of
  // its pods and containers that named no cgroup parent, /crio-<id> and /crio/crio-<id>,
  // for every id its storage still knows. Then the test pods' parents, and /crio, only
  // when empty (another CRI-O's pods keep theirs).
  const files = crioFiles(dirs);
  const ids = new Set<string>();
  for (const root of [files.graphRoot, files.runRoot]) {
    for (const id of await readdir(join(root, 'overlay-containers')).catch(() => [])) {
      if (/^[0-9a-f]{64}$/.test(id)) ids.add(id);
    }
  }
  await removeCgroups(
    [...ids].flatMap((id) => [`/crio-${id}`, `/crio/crio-${id}`]),
    { subtree: false },
  );
  await removeCgroups([runtimeCgroup(spec)]);
  await removeCgroups(['/crio'], { subtree: false });
  await rm(dirs.base, { recursive: true, force: true });
}
