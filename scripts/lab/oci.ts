/**
 * Writes a single-layer OCI image-layout tarball (oci-layout, index.json, blobs/sha256/…)
 * from a root filesystem directory, reproducibly: sorted entries, fixed mtimes and owners,
 * and a gzip stream without a timestamp, so the same input always gives the same digests.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { run } from './exec';

export interface ImageConfigInput {
  Env: string[];
  Cmd?: string[];
  Entrypoint?: string[];
  WorkingDir?: string;
}

export interface OciBuildInput {
  /** Full reference, e.g. localhost/porthole/busybox:latest. */
  ref: string;
  /** Directory whose contents become the image's only layer. */
  rootfs: string;
  config: ImageConfigInput;
  /** One line for the image history (what `docker history` would show). */
  createdBy: string;
}

export interface BuiltImage {
  ref: string;
  tarPath: string;
  /** The digest containerd lists for the image (the manifest's). */
  manifestDigest: string;
  configDigest: string;
  layerDigest: string;
  diffId: string;
}

export const DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

/** Node's process.arch in the GOARCH spelling images use. */
export function goArch(arch: string = process.arch): string {
  const map: Record<string, string> = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm',
    ia32: '386',
    ppc64: 'ppc64le',
    s390x: 's390x',
    riscv64: 'riscv64',
    loong64: 'loong64',
  };
  return map[arch] ?? arch;
}

function sha256(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The tar flags that make GNU tar's output depend only on names, contents and modes. */
const REPRODUCIBLE_TAR = [
  '--sort=name',
  '--format=gnu',
  '--mtime=@0',
  '--owner=0',
  '--group=0',
  '--numeric-owner',
];

/** Tars the contents of `dir` (not `dir` itself) into `out`, reproducibly. */
export async function reproducibleTar(dir: string, out: string): Promise<void> {
  const entries = (await readdir(dir)).sort();
  await run('tar', [
    '--create',
    `--file=${out}`,
    `--directory=${dir}`,
    ...REPRODUCIBLE_TAR,
    '--',
    ...entries,
  ]);
}

/** Builds the image in `workDir` (emptied first) and writes the archive to `outTar`. */
export async function buildOciArchive(
  input: OciBuildInput,
  workDir: string,
  outTar: string,
): Promise<BuiltImage> {
  await rm(workDir, { recursive: true, force: true });
  const layout = join(workDir, 'layout');
  const blobs = join(layout, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });

  const layerTar = join(workDir, 'layer.tar');
  await reproducibleTar(input.rootfs, layerTar);
  const layerRaw = await readFile(layerTar);
  const diffId = sha256(layerRaw);
  const layerGz = gzipSync(layerRaw, { level: 9 });
  const layerDigest = sha256(layerGz);

  const arch = goArch();
  const config = {
    architecture: arch,
    os: 'linux',
    config: input.config,
    rootfs: { type: 'layers', diff_ids: [diffId] },
    history: [{ created_by: input.createdBy, comment: 'porthole lab image' }],
  };
  const configJson = JSON.stringify(config);
  const configDigest = sha256(configJson);

  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA.manifest,
    config: { mediaType: MEDIA.config, digest: configDigest, size: Buffer.byteLength(configJson) },
    layers: [{ mediaType: MEDIA.layer, digest: layerDigest, size: layerGz.length }],
  };
  const manifestJson = JSON.stringify(manifest);
  const manifestDigest = sha256(manifestJson);

  const tag = input.ref.slice(input.ref.lastIndexOf(':') + 1);
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: [
      {
        mediaType: MEDIA.manifest,
        digest: manifestDigest,
        size: Buffer.byteLength(manifestJson),
        platform: { architecture: arch, os: 'linux' },
        annotations: {
          'io.containerd.image.name': input.ref,
          'org.opencontainers.image.ref.name': tag,
        },
      },
    ],
  };

  const blob = (digest: string): string => join(blobs, digest.slice('sha256:'.length));
  await writeFile(blob(layerDigest), layerGz);
  await writeFile(blob(configDigest), configJson);
  await writeFile(blob(manifestDigest), manifestJson);
  await writeFile(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(layout, 'index.json'), JSON.stringify(index));
  await reproducibleTar(layout, outTar);
  await rm(workDir, { recursive: true, force: true });

  return { ref: input.ref, tarPath: outTar, manifestDigest, configDigest, layerDigest, diffId };
}
