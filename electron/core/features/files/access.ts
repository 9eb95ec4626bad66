/**
 * How a container's files are reached: in the container itself when it has a shell, or
 * through a running debug container of it, at `/proc/<pid>/root`, when it has none. And
 * which tools are there (tar for directories and uploads, sha256sum for the check).
 */
import { AppError, isAppError } from '../../../../shared/errors';
import type { FilesAccess } from '../../../../shared/model';
import type { NodeClient } from '../nodes';

/** Where commands run and what is prefixed to every path. */
export interface Access extends FilesAccess {
  /** The container the commands run in (the target, or its debug container). */
  readonly execIn: string;
  /** Prefixed to every path: '' directly, `/proc/<pid>/root` through a debug container. */
  readonly root: string;
  /** The tools' absolute paths, as the exec runs them (an exec may have no PATH). */
  readonly paths: Tools['paths'];
  readonly containerName: string;
}

export interface DebugRoots {
  rootOf(
    nodeId: string,
    targetId: string,
    signal?: AbortSignal,
  ): Promise<{ readonly containerId: string; readonly root: string } | undefined>;
}

/**
 * The tools as files on PATH, not `command -v`: a busybox shell finds its own applets
 * without their links, but the exec that runs tar does not go through the shell.
 */
const probeScript = [
  'IFS=:',
  // An exec may come with no PATH at all (CRI-O gives a toolbox none): look where images put them.
  'for d in ${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}; do',
  '  [ -z "$tar" ] && [ -x "$d/tar" ] && tar="$d/tar"',
  '  [ -z "$sum" ] && [ -x "$d/sha256sum" ] && sum="$d/sha256sum"',
  '  [ -z "$cat" ] && [ -x "$d/cat" ] && cat="$d/cat"',
  'done',
  'printf "tar=%s\\nsha256=%s\\ncat=%s\\n" "$tar" "$sum" "$cat"',
].join('\n');
const probeTimeoutSeconds = 10;

/** Errors that say the node or the call went away, not that the container lacks a shell. */
function isTransportFailure(error: unknown): boolean {
  return (
    isAppError(error) &&
    [
      'unavailable',
      'connection-lost',
      'cancelled',
      'deadline-exceeded',
      'unauthenticated',
    ].includes(error.code)
  );
}

interface Tools {
  readonly tar: boolean;
  readonly sha256: boolean;
  readonly paths: { readonly tar: string; readonly sha256sum: string; readonly cat: string };
}

async function tools(
  client: Pick<NodeClient, 'execSync'>,
  containerId: string,
  signal?: AbortSignal,
): Promise<Tools | undefined> {
  try {
    const result = await client.execSync(
      containerId,
      ['sh', '-c', probeScript],
      probeTimeoutSeconds,
      signal !== undefined ? { signal } : {},
    );
    if (result.exitCode !== 0) return undefined;
    const found = new Map(
      new TextDecoder()
        .decode(result.stdout)
        // A toolbox with a tty (CRI-O runs ExecSync through it) ends lines with \r\n.
        .split(/\r?\n/)
        .map((line) => [
          line.slice(0, line.indexOf('=')),
          line.slice(line.indexOf('=') + 1).trim(),
        ]),
    );
    const tar = found.get('tar') ?? '';
    const sha256sum = found.get('sha256') ?? '';
    return {
      tar: tar !== '',
      sha256: sha256sum !== '',
      paths: { tar, sha256sum, cat: found.get('cat') || 'cat' },
    };
  } catch (error) {
    if (isTransportFailure(error)) throw error;
    // The runtime could not start `sh`: the image has none.
    return undefined;
  }
}

export async function resolveAccess(
  client: Pick<NodeClient, 'execSync' | 'containerStatus'>,
  debug: DebugRoots,
  nodeId: string,
  containerId: string,
  signal?: AbortSignal,
): Promise<Access> {
  const call = signal !== undefined ? { signal } : {};
  // The probe goes out beside the status, not after it (a round trip less before every
  // listing and transfer); it is only heard when the container runs.
  const probing = tools(client, containerId, signal);
  probing.catch(() => undefined);
  const detail = await client.containerStatus(containerId, call);
  const containerName = detail.name || containerId.slice(0, 12);
  if (detail.state !== 'running') {
    throw new AppError({
      code: 'failed-precondition',
      message: `${containerName} is ${detail.state}: only a running container's files can be reached through the CRI.`,
    });
  }
  const direct = await probing;
  if (direct !== undefined) {
    return {
      via: 'direct',
      execIn: containerId,
      root: '',
      containerName,
      ...direct,
      ...(!direct.tar && {
        note: `${containerName} has no tar: single files move with cat, directories can't be downloaded or folders uploaded.`,
      }),
    };
  }
  const through = await debug.rootOf(nodeId, containerId, signal);
  if (through === undefined) {
    throw new AppError({
      code: 'failed-precondition',
      message: `${containerName} has no shell, so its files can't be reached from inside it.`,
      hint: 'Start a debug container for it (Debug…): Files then goes through it, at /proc/<pid>/root.',
      step: 'no-shell',
    });
  }
  const found = await tools(client, through.containerId, signal);
  if (found === undefined) {
    throw new AppError({
      code: 'failed-precondition',
      message: `Neither ${containerName} nor its debug container has a shell to reach the files with.`,
      hint: 'Start a debug container from an image with a shell (busybox, the default).',
    });
  }
  return {
    via: 'debug',
    debugContainerId: through.containerId,
    execIn: through.containerId,
    root: through.root,
    containerName,
    ...found,
    note: `${containerName} has no shell: its files are reached through its debug container, at ${through.root}.`,
  };
}
