/**
 * Which file holds a container's log. The runtime reports it in ContainerStatus
 * (`log_path`): absolute on containerd, but the CRI allows it relative to the pod's log
 * directory (PodSandboxConfig.log_directory, found in the pod's verbose info). The
 * previous attempt is what `kubectl logs --previous` shows: the container of the same
 * name in the same pod with the attempt before, or, once that container is removed, the
 * `<attempt - 1>.log` the kubelet's layout leaves next to the current log.
 */
import { dirname, isAbsolute, join } from 'node:path';
import { AppError } from '../../../../shared/errors';
import type { ContainerDetail, PodSandboxDetail } from '../../../../shared/model';
import type { CallOptions, CriClient } from '../../base/cri';
import type { NodeFiles } from '../../base/files/files';
import { logger } from '../../base/log';

const logsLog = logger('logs');

export type LocateClient = Pick<CriClient, 'containerStatus' | 'podStatus' | 'listContainers'>;

export interface LogLocation {
  readonly path: string;
  /** The container whose log it is (the previous attempt's, when asked for). */
  readonly containerId: string;
  readonly containerName: string;
  readonly attempt: number;
  /** Whether that container runs: only then can the runtime reopen its log. */
  readonly running: boolean;
  readonly podSandboxId: string;
  readonly podName?: string;
  readonly namespace?: string;
}

function asRecord(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The pod's log directory, from its verbose info (containerd: info.config.log_directory). */
export function podLogDirectory(pod: PodSandboxDetail | undefined): string | undefined {
  const config = asRecord(asRecord(pod?.info.info)?.config);
  const directory = config?.log_directory ?? config?.logDirectory;
  return typeof directory === 'string' && directory !== '' ? directory : undefined;
}

function resolveLogPath(container: ContainerDetail, pod: PodSandboxDetail | undefined): string {
  const path = container.logPath;
  if (path === '') {
    throw new AppError({
      code: 'not-found',
      message: `The runtime keeps no log file for ${container.name}.`,
      hint: 'Its pod was created without a log directory (PodSandboxConfig.log_directory), so the runtime discards its output.',
    });
  }
  if (isAbsolute(path)) return path;
  const directory = podLogDirectory(pod);
  if (directory === undefined) {
    throw new AppError({
      code: 'not-found',
      message: `The log of ${container.name} is at ${path} in its pod's log directory, which the runtime doesn't report.`,
      hint: 'The runtime leaves the pod configuration out of its verbose status.',
    });
  }
  return join(directory, path);
}

export async function locateLog(
  client: LocateClient,
  files: NodeFiles,
  containerId: string,
  previous: boolean,
  options: CallOptions = {},
): Promise<LogLocation> {
  const current = await client.containerStatus(containerId, { ...options, verbose: true });
  const pod =
    current.podSandboxId === ''
      ? undefined
      : await client
          .podStatus(current.podSandboxId, { ...options, verbose: true })
          .catch(logsLog.failure("The log's pod could not be read; it is named without it"));
  const podFields = {
    podSandboxId: current.podSandboxId,
    ...(pod !== undefined && { podName: pod.name, namespace: pod.namespace }),
  };
  if (!previous) {
    return {
      path: resolveLogPath(current, pod),
      containerId: current.id,
      containerName: current.name,
      attempt: current.attempt,
      running: current.state === 'running',
      ...podFields,
    };
  }
  if (current.attempt === 0) {
    throw new AppError({
      code: 'not-found',
      message: `${current.name} has no previous attempt: it is the first (attempt 0).`,
      hint: 'Turn off "previous" to see this attempt’s log.',
    });
  }
  const attempt = current.attempt - 1;
  const siblings =
    current.podSandboxId === ''
      ? []
      : await client.listContainers({ podSandboxId: current.podSandboxId }, options);
  const before = siblings.find(
    (container) => container.name === current.name && container.attempt === attempt,
  );
  if (before !== undefined) {
    const detail = await client.containerStatus(before.id, { ...options, verbose: true });
    return {
      path: resolveLogPath(detail, pod),
      containerId: detail.id,
      containerName: detail.name,
      attempt,
      running: detail.state === 'running',
      ...podFields,
    };
  }
  // Removed: its log may still be there, where the kubelet's layout puts it.
  const path = join(dirname(resolveLogPath(current, pod)), `${attempt}.log`);
  if (!(await files.exists(path))) {
    throw new AppError({
      code: 'not-found',
      message: `The previous attempt of ${current.name} (attempt ${attempt}) left no log: its container was removed and there is no ${path}.`,
    });
  }
  return {
    path,
    containerId: current.id,
    containerName: current.name,
    attempt,
    running: false,
    ...podFields,
  };
}
