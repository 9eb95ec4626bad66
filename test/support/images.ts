/**
 * Images the tests may destroy. CRI RemoveImage deletes every reference to an image's
 * content, so a test must never remove the shared busybox: it imports its own tiny,
 * unique image instead and removes that.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../../electron/core/base/cri';
import { importArchive } from '../../scripts/lab/import';
import { DEFAULT_PATH, buildOciArchive } from '../../scripts/lab/oci';
import type { LabRuntime } from './lab';

/**
 * Imports a one-file image with a unique name and content; returns its reference once the
 * runtime's CRI service knows it: containerd's CRI plugin learns of an image that ctr
 * imported from the image events, a moment after the import returns.
 */
export async function importThrowawayImage(runtime: LabRuntime): Promise<string> {
  const id = randomUUID().slice(0, 8);
  const ref = `localhost/porthole/throwaway-${id}:1`;
  const work = await mkdtemp(join(tmpdir(), 'porthole-image-'));
  try {
    const rootfs = join(work, 'rootfs');
    await mkdir(join(rootfs, 'etc'), { recursive: true });
    await writeFile(join(rootfs, 'etc', 'throwaway'), `${id}\n`);
    const image = await buildOciArchive(
      { ref, rootfs, config: { Env: [DEFAULT_PATH] }, createdBy: 'porthole test' },
      join(work, 'build'),
      join(work, 'image.tar'),
    );
    await importArchive(runtime.importer, image);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const client = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 15_000 });
  try {
    const deadline = Date.now() + 30_000;
    while ((await client.imageStatus(ref)) === undefined) {
      if (Date.now() > deadline) throw new Error(`the runtime does not list ${ref} after import`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    client.dispose();
  }
  return ref;
}
