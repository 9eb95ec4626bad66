/**
 * Packages: Debian 12's through the system's apt (only what is missing), and containerd
 * 2.x from Debian unstable through a private apt configuration that never touches the
 * system's sources, lists or caches. The extracted 2.x binaries are cached.
 */
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LabError, exists, isExecutable, run, tail, which } from './exec';
import { isStaticElf } from './elf';
import { CONMON } from './crio';
import { BUSYBOX_PATH } from './images';
import { progress } from './log';

/** Something the lab needs (a program, usually), and the Debian 12 package that provides it. */
export interface Requirement {
  /** A path, or a name for messages when `check` decides. */
  path: string;
  pkg: string;
  /** Replaces the default check, "path is an executable file". */
  check?: (path: string) => Promise<boolean>;
}

export const CNI_BIN_DIR = '/usr/lib/cni';
export const RUNC = '/usr/bin/runc';

export const CONTAINERD_16 = {
  containerd: '/usr/bin/containerd',
  ctr: '/usr/bin/ctr',
  shim: '/usr/bin/containerd-shim-runc-v2',
} as const;

const APT_ENV = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

export const SKOPEO = '/usr/bin/skopeo';

export function requirements(opts: {
  containerd16: boolean;
  compiler: boolean;
  /** CRI-O runs with Debian's conmon. */
  crio?: boolean;
  /** CRI-O's images go in with skopeo where no copyimg came with crio. */
  skopeo?: boolean;
}): Requirement[] {
  const reqs: Requirement[] = [
    { path: RUNC, pkg: 'runc' },
    ...['bridge', 'host-local', 'portmap', 'loopback'].map((p) => ({
      path: join(CNI_BIN_DIR, p),
      pkg: 'containernetworking-plugins',
    })),
    {
      path: BUSYBOX_PATH,
      pkg: 'busybox-static',
      check: async (path: string) => (await exists(path)) && (await isStaticElf(path)) === true,
    },
    // `ip` removes the pod bridges on `down`.
    { path: 'ip', pkg: 'iproute2', check: async () => (await which('ip')) !== undefined },
  ];
  if (opts.containerd16) {
    reqs.push(
      { path: CONTAINERD_16.containerd, pkg: 'containerd' },
      { path: CONTAINERD_16.ctr, pkg: 'containerd' },
      { path: CONTAINERD_16.shim, pkg: 'containerd' },
    );
  }
  if (opts.crio === true) reqs.push({ path: CONMON, pkg: 'conmon' });
  if (opts.skopeo === true) reqs.push({ path: SKOPEO, pkg: 'skopeo' });
  if (opts.compiler) {
    reqs.push({ path: 'gcc', pkg: 'gcc', check: async () => (await which('gcc')) !== undefined });
    reqs.push({
      path: 'libc.a',
      pkg: 'libc6-dev',
      check: async () => {
        const gcc = await which('gcc');
        if (gcc === undefined) return false;
        const found = (await run(gcc, ['-print-file-name=libc.a'])).stdout.trim();
        return found.startsWith('/') && (await exists(found));
      },
    });
  }
  return reqs;
}

async function satisfied(req: Requirement): Promise<boolean> {
  return req.check !== undefined ? req.check(req.path) : isExecutable(req.path);
}

/** Installs (with the system's apt) the packages whose files are missing. */
export async function ensurePackages(reqs: readonly Requirement[]): Promise<void> {
  const missing = new Set<string>();
  for (const req of reqs) if (!(await satisfied(req))) missing.add(req.pkg);
  if (missing.size === 0) {
    progress('packages: all present');
    return;
  }
  const pkgs = [...missing].sort();
  if (process.getuid?.() !== 0) {
    throw new LabError(
      `Missing packages: ${pkgs.join(' ')}; installing them needs root.`,
      `Run: sudo apt-get install -y --no-install-recommends ${pkgs.join(' ')}`,
    );
  }
  const install = [
    'install',
    '-y',
    '--no-install-recommends',
    '-o',
    'DPkg::Lock::Timeout=120',
    ...pkgs,
  ];
  progress(`packages: apt-get install ${pkgs.join(' ')} (can take a few minutes)`);
  try {
    await run('apt-get', install, { env: APT_ENV, timeoutMs: 15 * 60_000 });
  } catch (first) {
    progress(`packages: install failed, running apt-get update first`);
    await run('apt-get', ['update', '-o', 'DPkg::Lock::Timeout=120'], {
      env: APT_ENV,
      timeoutMs: 10 * 60_000,
    });
    try {
      await run('apt-get', install, { env: APT_ENV, timeoutMs: 15 * 60_000 });
    } catch (second) {
      throw new LabError(
        `apt-get install ${pkgs.join(' ')} failed.`,
        second instanceof LabError ? second.detail : String(first),
      );
    }
  }
  for (const req of reqs) {
    if (!(await satisfied(req)))
      throw new LabError(`${req.path} is still missing after installing ${req.pkg}.`);
  }
  progress('packages: installed');
}

/** The extracted containerd 2.x release the lab runs. */
export interface Containerd2 {
  version: string;
  containerd: string;
  ctr: string;
  shim: string;
}

const SID_SOURCE =
  'deb [arch={arch} signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main';

function containerd2From(dir: string, version: string): Containerd2 {
  const bin = join(dir, 'usr', 'bin');
  return {
    version,
    containerd: join(bin, 'containerd'),
    ctr: join(bin, 'ctr'),
    shim: join(bin, 'containerd-shim-runc-v2'),
  };
}

async function cachedContainerd2(root: string): Promise<Containerd2 | undefined> {
  try {
    const version = (await readFile(join(root, 'current'), 'utf8')).trim();
    const found = containerd2From(join(root, version), version);
    for (const bin of [found.containerd, found.ctr, found.shim])
      if (!(await isExecutable(bin))) return undefined;
    return found;
  } catch {
    return undefined;
  }
}

/** apt options that confine apt-get to our own files (sources, lists, cache, status). */
function privateAptOptions(aptDir: string): string[] {
  const opts: Record<string, string> = {
    'Dir::Etc::SourceList': join(aptDir, 'sources.list'),
    'Dir::Etc::SourceParts': '/dev/null',
    'Dir::Etc::Preferences': '/dev/null',
    'Dir::Etc::PreferencesParts': '/dev/null',
    'Dir::State::Lists': join(aptDir, 'lists'),
    'Dir::State::status': join(aptDir, 'status'),
    'Dir::State::extended_states': join(aptDir, 'extended_states'),
    'Dir::Cache': join(aptDir, 'cache'),
    'Acquire::Languages': 'none',
    'APT::Sandbox::User': 'root',
  };
  return Object.entries(opts).flatMap(([k, v]) => ['-o', `${k}=${v}`]);
}

/**
 * containerd 2.x: `apt-get download containerd` from sid with a private apt setup, then
 * `dpkg-deb -x` into `<cache>/containerd-2/<version>`. Later runs reuse that directory.
 */
export async function ensureContainerd2(cacheRoot: string): Promise<Containerd2> {
  const root = join(cacheRoot, 'containerd-2');
  const hit = await cachedContainerd2(root);
  if (hit !== undefined) {
    progress(`containerd 2: cached ${hit.version}`);
    return hit;
  }
  const arch = (await run('dpkg', ['--print-architecture'])).stdout.trim();
  // A private apt directory per process: two labs brought up at once on a fresh machine
  // (one per worktree, or a test run beside a developer's lab) otherwise remove and
  // rename each other's lists mid-update, and both fail.
  const aptDir = join(cacheRoot, `apt.${process.pid}`);
  await rm(aptDir, { recursive: true, force: true });
  for (const dir of ['lists/partial', 'cache/archives/partial', 'download']) {
    await mkdir(join(aptDir, dir), { recursive: true });
  }
  await writeFile(join(aptDir, 'sources.list'), `${SID_SOURCE.replace('{arch}', arch)}\n`);
  await writeFile(join(aptDir, 'status'), '');
  const opts = privateAptOptions(aptDir);
  try {
    progress('containerd 2: apt-get update (private sources: Debian unstable)');
    await run('apt-get', [...opts, 'update'], { env: APT_ENV, timeoutMs: 10 * 60_000 });
    progress('containerd 2: apt-get download containerd');
    const downloadDir = join(aptDir, 'download');
    await run('apt-get', [...opts, 'download', 'containerd'], {
      cwd: downloadDir,
      env: APT_ENV,
      timeoutMs: 10 * 60_000,
    });
    const debs = (await readdir(downloadDir)).filter((f) => f.endsWith('.deb'));
    const deb = debs[0];
    if (deb === undefined || debs.length !== 1) {
      throw new LabError(
        `Expected one containerd .deb in ${downloadDir}, found: ${debs.join(', ') || 'none'}`,
      );
    }
    const debPath = join(downloadDir, deb);
    const version = (await run('dpkg-deb', ['-f', debPath, 'Version'])).stdout.trim();
    if (!/^2\./.test(version)) {
      throw new LabError(`Debian unstable's containerd is ${version}, not a 2.x release.`);
    }
    const target = join(root, version);
    const temp = `${target}.${process.pid}.tmp`;
    await rm(temp, { recursive: true, force: true });
    await mkdir(temp, { recursive: true });
    await run('dpkg-deb', ['-x', debPath, temp]);
    if ((await cachedContainerd2(root))?.version === version) {
      // Another lab extracted the same version meanwhile, and may be running from it.
      await rm(temp, { recursive: true, force: true });
    } else {
      await rm(target, { recursive: true, force: true });
      await rename(temp, target);
      await writeFile(join(root, 'current'), `${version}\n`);
    }
  } catch (error) {
    if (error instanceof LabError) {
      throw new LabError(
        `Could not get containerd 2.x from Debian unstable: ${error.message}`,
        error.detail,
      );
    }
    throw error;
  } finally {
    // The lists (~25 MB) and the .deb are not needed once extracted.
    await rm(aptDir, { recursive: true, force: true });
  }
  const got = await cachedContainerd2(root);
  if (got === undefined)
    throw new LabError(`containerd 2.x was extracted to ${root} but its binaries are missing.`);
  const reported = tail((await run(got.containerd, ['--version'])).stdout, 1);
  progress(`containerd 2: ${reported}`);
  return got;
}
