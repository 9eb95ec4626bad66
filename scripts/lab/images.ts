/**
 * The lab's two images, built locally (no registry is reachable): busybox from
 * busybox-static, and a pause image from pause.c. Built archives are cached by a key of
 * their inputs, so `up` builds them once per machine.
 */
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LabError, exists, run, which } from './exec';
import { isStaticElf } from './elf';
import { progress } from './log';
import { type BuiltImage, DEFAULT_PATH, buildOciArchive } from './oci';
import { LAB_IMAGES } from './types';

/** Bump when the way images are built changes, to invalidate the cache. */
const BUILDER_VERSION = '1';

export const BUSYBOX_PATH = '/bin/busybox';
const PAUSE_SOURCE = fileURLToPath(new URL('./pause.c', import.meta.url));

function hash(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const part of parts) h.update(part).update('\0');
  return h.digest('hex').slice(0, 16);
}

function isBuiltImage(value: unknown): value is BuiltImage {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.ref === 'string' &&
    typeof v.tarPath === 'string' &&
    typeof v.manifestDigest === 'string'
  );
}

async function cached(metaPath: string): Promise<BuiltImage | undefined> {
  try {
    const meta: unknown = JSON.parse(await readFile(metaPath, 'utf8'));
    if (isBuiltImage(meta) && (await exists(meta.tarPath))) return meta;
  } catch {
    // not cached
  }
  return undefined;
}

/** Builds via `build` into `<cache>/images/<name>-<key>.tar` unless already there. */
async function cachedBuild(
  cacheRoot: string,
  name: string,
  key: string,
  build: (
    rootfs: string,
  ) => Promise<{ config: Parameters<typeof buildOciArchive>[0]['config']; createdBy: string }>,
  ref: string,
): Promise<BuiltImage> {
  const dir = join(cacheRoot, 'images');
  const tarPath = join(dir, `${name}-${key}.tar`);
  const metaPath = join(dir, `${name}-${key}.json`);
  const hit = await cached(metaPath);
  if (hit !== undefined) {
    progress(`image ${ref}: cached (${hit.manifestDigest.slice(0, 19)})`);
    return hit;
  }
  progress(`image ${ref}: building`);
  const work = join(dir, `build-${name}-${process.pid}`);
  const rootfs = join(work, 'rootfs');
  await rm(work, { recursive: true, force: true });
  await mkdir(rootfs, { recursive: true });
  try {
    const { config, createdBy } = await build(rootfs);
    const tmpTar = `${tarPath}.${process.pid}.tmp`;
    const built = await buildOciArchive(
      { ref, rootfs, config, createdBy },
      join(work, 'oci'),
      tmpTar,
    );
    await rename(tmpTar, tarPath);
    const meta: BuiltImage = { ...built, tarPath };
    await writeFile(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
    progress(`image ${ref}: built ${meta.manifestDigest.slice(0, 19)}`);
    return meta;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function writeFileMode(path: string, content: string, mode: number): Promise<void> {
  await writeFile(path, content);
  await chmod(path, mode);
}

async function mkdirMode(path: string, mode: number): Promise<void> {
  await mkdir(path, { recursive: true });
  await chmod(path, mode);
}

/** busybox plus one symlink per applet in /bin, minimal /etc, and /tmp. */
export async function busyboxImage(cacheRoot: string): Promise<BuiltImage> {
  const isStatic = (await exists(BUSYBOX_PATH)) ? await isStaticElf(BUSYBOX_PATH) : undefined;
  if (isStatic !== true) {
    throw new LabError(
      `${BUSYBOX_PATH} is ${isStatic === false ? 'dynamically linked' : 'missing'}: the busybox image needs busybox-static.`,
      'Install it with: apt-get install busybox-static',
    );
  }
  const binary = await readFile(BUSYBOX_PATH);
  const applets = (await run(BUSYBOX_PATH, ['--list'])).stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((name) => name !== '' && name !== 'busybox' && !name.includes('/'))
    .sort();
  const key = hash(BUILDER_VERSION, 'busybox', binary, applets.join(','));
  return cachedBuild(
    cacheRoot,
    'busybox',
    key,
    async (rootfs) => {
      for (const dir of ['bin', 'etc', 'usr/bin', 'root'])
        await mkdirMode(join(rootfs, dir), 0o755);
      await chmod(join(rootfs, 'root'), 0o700);
      await mkdirMode(join(rootfs, 'usr'), 0o755);
      await mkdirMode(join(rootfs, 'tmp'), 0o1777);
      await copyFile(BUSYBOX_PATH, join(rootfs, 'bin', 'busybox'));
      await chmod(join(rootfs, 'bin', 'busybox'), 0o755);
      for (const applet of applets) await symlink('busybox', join(rootfs, 'bin', applet));
      // For `#!/usr/bin/env …` scripts.
      await symlink('/bin/busybox', join(rootfs, 'usr', 'bin', 'env'));
      await writeFileMode(
        join(rootfs, 'etc', 'passwd'),
        'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n',
        0o644,
      );
      await writeFileMode(join(rootfs, 'etc', 'group'), 'root:x:0:\nnobody:x:65534:\n', 0o644);
      return {
        config: { Env: [DEFAULT_PATH], Cmd: ['sh'], WorkingDir: '/' },
        createdBy: `busybox-static (${applets.length} applets) by scripts/lab`,
      };
    },
    LAB_IMAGES.busybox,
  );
}

async function pauseKey(): Promise<string> {
  return hash(BUILDER_VERSION, 'pause', await readFile(PAUSE_SOURCE, 'utf8'));
}

/** The pod sandbox image: one static binary, /pause. */
export async function pauseImage(cacheRoot: string): Promise<BuiltImage> {
  const key = await pauseKey();
  return cachedBuild(
    cacheRoot,
    'pause',
    key,
    async (rootfs) => {
      const gcc = await which('gcc');
      if (gcc === undefined) {
        throw new LabError(
          'gcc is missing: the pause image is built from C.',
          'apt-get install gcc libc6-dev',
        );
      }
      const out = join(rootfs, 'pause');
      await run(gcc, ['-static', '-O2', '-s', '-Wall', '-o', out, PAUSE_SOURCE]);
      await chmod(out, 0o755);
      if ((await isStaticElf(out)) !== true)
        throw new LabError(`gcc did not produce a static binary: ${out}`);
      return {
        config: { Env: [DEFAULT_PATH], Entrypoint: ['/pause'] },
        createdBy: 'gcc -static -O2 -s pause.c by scripts/lab',
      };
    },
    LAB_IMAGES.pause,
  );
}

/** Whether building the pause image needs gcc (false once it is cached). */
export async function pauseNeedsCompiler(cacheRoot: string): Promise<boolean> {
  const key = await pauseKey();
  return (await cached(join(cacheRoot, 'images', `pause-${key}.json`))) === undefined;
}

export async function buildImages(cacheRoot: string): Promise<BuiltImage[]> {
  await mkdir(join(cacheRoot, 'images'), { recursive: true });
  return [await busyboxImage(cacheRoot), await pauseImage(cacheRoot)];
}
