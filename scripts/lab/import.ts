/**
 * Puts an OCI image archive into a lab runtime without a registry: containerd through its
 * `ctr images import`, CRI-O by writing its containers/storage directly with CRI-O's
 * `copyimg` (or Debian's `skopeo`, which does the same). The one way images get in, for
 * `up` and for tests that import throwaway images.
 */
import { run } from './exec';
import type { LabImageImporter } from './types';

export interface ImageArchive {
  /** The reference it is known by, e.g. localhost/porthole/busybox:latest. */
  ref: string;
  tarPath: string;
}

/** What runs for one import: a program and its arguments (never a shell of user input). */
export function importCommand(
  importer: LabImageImporter,
  image: ImageArchive,
): { program: string; args: string[] } {
  if (importer.kind === 'ctr') {
    return {
      program: importer.ctr,
      args: [
        '--address',
        importer.socketPath,
        '--namespace',
        'k8s.io',
        'images',
        'import',
        image.tarPath,
      ],
    };
  }
  const copier =
    importer.kind === 'copyimg'
      ? [
          importer.program,
          '--root',
          importer.graphRoot,
          '--runroot',
          importer.runRoot,
          '--storage-driver',
          importer.storageDriver,
          '--signature-policy',
          importer.signaturePolicy,
          '--import-from',
          `oci-archive:${image.tarPath}`,
          '--image-name',
          image.ref,
        ]
      : [
          importer.program,
          '--policy',
          importer.signaturePolicy,
          'copy',
          '--quiet',
          `oci-archive:${image.tarPath}`,
          `containers-storage:[${importer.storageDriver}@${importer.graphRoot}+${importer.runRoot}]${image.ref}`,
        ];
  // containers/image keeps a blob-info cache in /var/lib/containers/cache for root, with no
  // setting to move it: the copier runs in a mount namespace of its own where /var/lib is
  // an empty tmpfs, so nothing lands outside the lab's dirs. The script is fixed; the
  // copier and its arguments are passed as positional parameters.
  return {
    program: 'unshare',
    args: [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount -t tmpfs porthole-lab /var/lib && exec "$0" "$@"',
      ...copier,
    ],
  };
}

export async function importArchive(
  importer: LabImageImporter,
  image: ImageArchive,
): Promise<void> {
  const { program, args } = importCommand(importer, image);
  await run(program, args, { timeoutMs: 120_000 });
}
