/**
 * Finding the runtime socket on a remote node without a shell: SFTP `stat` for each
 * well-known path (no command line is built from a path, so nothing can be injected), then
 * a streamlocal channel to prove something accepts connections there.
 *
 * sshd reports a refused streamlocal channel only as "open failed", so when opening fails
 * the reason is worked out from the socket's owner, group and mode against the SSH user's
 * ids (`id -u; id -G`, a fixed command) to say what to change.
 */
import type { Duplex } from 'node:stream';
import { AppError } from '../../../../shared/errors';
import type { RemoteRuntimeProbe } from '../../../../shared/model';
import { wellKnownEndpoints } from '../connect';
import { parseEndpoint } from '../cri';
import type { SftpFiles } from './remote-files';
import { groupName } from './remote-ids';
import { logger } from '../log';

const probeLog = logger('ssh');

/** SFTP status codes. */
const noSuchFile = 2;
const permissionDenied = 3;

export interface RemoteIds {
  readonly uid: number;
  readonly gids: readonly number[];
}

export interface ProbeContext {
  readonly node: string;
  readonly user: string;
  readonly files: SftpFiles;
  openStreamLocal(path: string): Promise<Duplex>;
  /** The SSH user's uid and groups, if they can be learned. */
  ids(): Promise<RemoteIds | undefined>;
  /** A group's name, if it can be learned. */
  groupName(gid: number): Promise<string | undefined>;
}

interface SocketAttributes {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/** Whether `ids` may connect to a socket with these attributes (write permission). */
export function canOpenSocket(socket: SocketAttributes, ids: RemoteIds): boolean {
  if (ids.uid === 0) return true;
  if (socket.uid === ids.uid) return (socket.mode & 0o200) !== 0;
  if (ids.gids.includes(socket.gid)) return (socket.mode & 0o020) !== 0;
  return (socket.mode & 0o002) !== 0;
}

/** What to tell a user who may not open the socket: which group would let them in. */
export function permissionAdvice(
  socket: SocketAttributes,
  user: string,
  path: string,
  node: string,
  groupName: string | undefined,
): { message: string; hint: string } {
  const message = `User ${user} cannot open ${path} on ${node}.`;
  const group =
    groupName !== undefined ? `"${groupName}" (gid ${socket.gid})` : `gid ${socket.gid}`;
  if (socket.gid !== 0 && (socket.mode & 0o020) !== 0) {
    return {
      message,
      hint: `Add ${user} to the group ${group} that owns it (then log in again), or use a root login / sudo-capable setup.`,
    };
  }
  return {
    message,
    hint: `Only ${socket.uid === 0 ? 'root' : `uid ${socket.uid}`} may open it: log in as root, or use a sudo-capable setup.`,
  };
}

/** Probes one endpoint on the node; never throws. */
export async function probeRemoteEndpoint(
  context: ProbeContext,
  endpoint: string,
  runtime: string,
): Promise<RemoteRuntimeProbe> {
  let path: string;
  try {
    path = parseEndpoint(endpoint).path;
  } catch (error) {
    return { endpoint, runtime, state: 'error', message: (error as Error).message };
  }
  const uri = `unix://${path}`;
  let socket: Awaited<ReturnType<SftpFiles['rawStat']>>;
  try {
    socket = await context.files.rawStat(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === noSuchFile) {
      return {
        endpoint: uri,
        runtime,
        state: 'absent',
        message: `No socket at ${path} on ${context.node}.`,
      };
    }
    if (code === permissionDenied) {
      return {
        endpoint: uri,
        runtime,
        state: 'refused',
        message: `User ${context.user} cannot reach ${path} on ${context.node}: a directory on the way is closed to it.`,
        hint: 'Log in as root, or use a sudo-capable setup.',
      };
    }
    return {
      endpoint: uri,
      runtime,
      state: 'error',
      message: `Could not look at ${path} on ${context.node}.`,
      ...(error instanceof Error && { hint: error.message }),
    };
  }
  if (!socket.isSocket()) {
    return {
      endpoint: uri,
      runtime,
      state: 'not-socket',
      message: `${path} on ${context.node} exists but is not a socket.`,
    };
  }
  try {
    const stream = await context.openStreamLocal(path);
    stream.destroy();
    return { endpoint: uri, runtime, state: 'ready' };
  } catch (error) {
    if (error instanceof AppError && error.code === 'permission-denied') {
      return {
        endpoint: uri,
        runtime,
        state: 'refused',
        message: error.message,
        ...(error.hint !== undefined && { hint: error.hint }),
      };
    }
    // Without the user's ids the probe gives no permission advice; it still probes.
    const ids = await context.ids().catch(probeLog.failure(`The SSH user's ids could not be read`));
    if (ids !== undefined && !canOpenSocket(socket, ids)) {
      const advice = permissionAdvice(
        socket,
        context.user,
        path,
        context.node,
        // Without a name the advice names the group by its number.
        await context.groupName(socket.gid).catch(() => undefined),
      );
      return { endpoint: uri, runtime, state: 'refused', ...advice };
    }
    return {
      endpoint: uri,
      runtime,
      state: 'error',
      message:
        ids === undefined
          ? `Could not open ${path} on ${context.node}: the runtime is not running there, or user ${context.user} may not open it.`
          : `Nothing accepts connections on ${path} on ${context.node}: the runtime has probably stopped.`,
      hint: 'Check the runtime on the node (e.g. systemctl status containerd).',
    };
  }
}

/**
 * Probes the well-known sockets in order (the same list as local discovery), each real
 * path once (/var/run is usually a link to /run).
 */
export async function probeRemoteRuntimes(context: ProbeContext): Promise<RemoteRuntimeProbe[]> {
  const probes: RemoteRuntimeProbe[] = [];
  const seen = new Set<string>();
  for (const { endpoint, runtime } of wellKnownEndpoints) {
    const path = parseEndpoint(endpoint).path;
    // A path that can't be resolved (absent) is probed as written, and found absent.
    const real = await context.files.realpath(path).catch(() => path);
    if (seen.has(real)) continue;
    seen.add(real);
    const probe = await probeRemoteEndpoint(context, endpoint, runtime);
    probes.push(probe);
    if (probe.state === 'ready') break;
  }
  return probes;
}

/** The error for a node whose runtime socket can't be used, from the probes made. */
export function noRuntimeError(node: string, probes: readonly RemoteRuntimeProbe[]): AppError {
  const refused = probes.find((probe) => probe.state === 'refused');
  const broken = probes.find((probe) => probe.state === 'error' || probe.state === 'not-socket');
  const detail = probes.map((probe) => `${probe.endpoint}: ${probe.state}`).join('\n');
  if (refused !== undefined) {
    return new AppError({
      code: 'permission-denied',
      message: refused.message ?? `The runtime socket on ${node} is closed to the SSH user.`,
      detail,
      ...(refused.hint !== undefined && { hint: refused.hint }),
    });
  }
  if (broken !== undefined) {
    const notSocket = broken.state === 'not-socket';
    return new AppError({
      code: notSocket ? 'invalid-argument' : 'unavailable',
      message: broken.message ?? `The runtime on ${node} does not answer.`,
      detail,
      ...(notSocket
        ? { hint: 'Point Porthole at the runtime socket itself.' }
        : broken.hint !== undefined && { hint: broken.hint }),
    });
  }
  return new AppError({
    code: 'not-found',
    message: `No container runtime socket was found on ${node}.`,
    detail,
    hint: 'Set the runtime endpoint in the node settings (e.g. unix:///run/containerd/containerd.sock).',
  });
}

/** What finding the runtime needs of the connection. */
export interface RuntimeLocation {
  readonly node: string;
  /** The SSH user on the node. */
  readonly user: string;
  files(): Promise<SftpFiles>;
  openStreamLocal(path: string): Promise<Duplex>;
  /** The SSH user's uid and groups, if they can be learned (asked at most once). */
  ids(): Promise<RemoteIds | undefined>;
}

export interface LocatedRuntime {
  /** The runtime socket on the node, e.g. /run/containerd/containerd.sock. */
  readonly path: string;
  /** What probing found (only the configured endpoint when one was given). */
  readonly probes: readonly RemoteRuntimeProbe[];
}

/**
 * The runtime socket to bridge to: the configured endpoint, which must answer, or the
 * first well-known one that does. Rejects with what probing found and what to do.
 */
export async function locateRuntime(
  location: RuntimeLocation,
  endpoint: string | undefined,
): Promise<LocatedRuntime> {
  const files = await location.files();
  let ids: Promise<RemoteIds | undefined> | undefined;
  const context: ProbeContext = {
    node: location.node,
    user: location.user,
    files,
    openStreamLocal: (path) => location.openStreamLocal(path),
    ids: () => (ids ??= location.ids()),
    groupName: async (gid) => groupName(await location.files(), gid),
  };
  if (endpoint !== undefined && endpoint.trim() !== '') {
    const probe = await probeRemoteEndpoint(context, endpoint, 'configured');
    if (probe.state !== 'ready') {
      throw probe.state === 'absent'
        ? new AppError({
            code: 'not-found',
            message: probe.message ?? `No runtime socket at ${endpoint} on ${location.node}.`,
            hint: 'Check the runtime endpoint in the node settings.',
          })
        : noRuntimeError(location.node, [probe]);
    }
    return { path: probe.endpoint.replace(/^unix:\/\//, ''), probes: [probe] };
  }
  const probes = await probeRemoteRuntimes(context);
  const ready = probes.find((probe) => probe.state === 'ready');
  if (ready === undefined) throw noRuntimeError(location.node, probes);
  return { path: ready.endpoint.replace(/^unix:\/\//, ''), probes };
}
