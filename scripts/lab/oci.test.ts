import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStaticElf } from './elf';
import { buildOciArchive, goArch } from './oci';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'porthole-oci-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rootfs(name: string, mtime: number): Promise<string> {
  const root = join(dir, name);
  await mkdir(join(root, 'bin'), { recursive: true });
  await writeFile(join(root, 'bin', 'tool'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  await symlink('tool', join(root, 'bin', 'alias'));
  await utimes(join(root, 'bin', 'tool'), mtime, mtime);
  return root;
}

function readFromTar(tar: string, member: string): string {
  return execFileSync('tar', ['-xOf', tar, member], { encoding: 'utf8' });
}

describe('buildOciArchive', () => {
  it('is reproducible and writes an OCI layout containerd can import', async () => {
    const input = {
      ref: 'localhost/porthole/test:latest',
      config: { Env: ['PATH=/bin'], Cmd: ['sh'] },
      createdBy: 'test',
    };
    const a = await buildOciArchive(
      { ...input, rootfs: await rootfs('a', 1000) },
      join(dir, 'work-a'),
      join(dir, 'a.tar'),
    );
    const b = await buildOciArchive(
      { ...input, rootfs: await rootfs('b', 2_000_000) },
      join(dir, 'work-b'),
      join(dir, 'b.tar'),
    );
    expect(b.manifestDigest).toBe(a.manifestDigest);
    expect(b.layerDigest).toBe(a.layerDigest);

    const layout = JSON.parse(readFromTar(a.tarPath, 'oci-layout')) as unknown;
    expect(layout).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(readFromTar(a.tarPath, 'index.json')) as {
      manifests: { digest: string; annotations: Record<string, string> }[];
    };
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0]?.digest).toBe(a.manifestDigest);
    expect(index.manifests[0]?.annotations).toEqual({
      'io.containerd.image.name': 'localhost/porthole/test:latest',
      'org.opencontainers.image.ref.name': 'latest',
    });
    const config = JSON.parse(
      readFromTar(a.tarPath, `blobs/sha256/${a.configDigest.slice(7)}`),
    ) as { architecture: string; os: string; rootfs: { diff_ids: string[] }; config: unknown };
    expect(config.os).toBe('linux');
    expect(config.architecture).toBe(goArch());
    expect(config.rootfs.diff_ids).toEqual([a.diffId]);
    expect(config.config).toEqual(input.config);
  });
});

describe('isStaticElf', () => {
  it('tells a dynamically linked program and a non-ELF file apart', async () => {
    expect(await isStaticElf(process.execPath)).toBe(false);
    const text = join(dir, 'text');
    await writeFile(text, 'not an ELF file, but long enough to read a header from it.........');
    expect(await isStaticElf(text)).toBeUndefined();
  });
});
