/**
 * What a terminal needs to know about its container before opening: that it exists and
 * runs, whether attach should ask for a tty and stdin, and how the monitor names it.
 */
import { AppError, isAppError, type AppErrorData } from '../../../../shared/errors';
import type { ContainerDetail, SessionTarget } from '../../../../shared/model';
import type { NodeClient } from '../nodes';
import { logger } from '../../base/log';

const factsLog = logger('terminals');

export type FactsClient = Pick<NodeClient, 'containerStatus' | 'podStatus'>;

/** How attach must open: the server expects the container's own tty and stdin settings. */
export interface AttachSettings {
  readonly tty: boolean;
  readonly stdin: boolean;
  /** Where they came from, for the record: false when guessed. */
  readonly known: boolean;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * containerd (1.6 and 2.x alike) puts the CRI ContainerConfig in the verbose info as
 * `info.config`, omitting false fields: `{tty: true, stdin: true}` or neither. CRI-O keeps
 * only the OCI spec, from which `detail.tty` comes, and says stdin in its annotation
 * `io.kubernetes.cri-o.Stdin`. Other runtimes with a tty but no word on stdin are taken to
 * have both, as `kubectl run -it` sets them. Knowing neither, attach only listens (no tty,
 * no stdin): output is never lost that way, and keystrokes can't go to a process that
 * doesn't read them.
 */
export function attachSettings(detail: ContainerDetail): AttachSettings {
  const runtimeInfo = asRecord(detail.info.info);
  const config = asRecord(runtimeInfo?.config);
  if (config !== undefined) {
    return { tty: config.tty === true, stdin: config.stdin === true, known: true };
  }
  if (detail.tty === undefined) return { tty: false, stdin: false, known: false };
  const annotations = asRecord(asRecord(runtimeInfo?.runtimeSpec)?.annotations);
  const crioStdin = annotations?.['io.kubernetes.cri-o.Stdin'];
  const stdin = typeof crioStdin === 'string' ? crioStdin === 'true' : detail.tty;
  return { tty: detail.tty, stdin, known: true };
}

function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 12) : id;
}

/**
 * How a caller words the two refusals of `runningContainer`: what the user was about to do
 * decides the sentence, while the check itself is the same for everyone.
 */
export interface ContainerRefusals {
  readonly notFound: (shortId: string, nodeName: string) => Pick<AppErrorData, 'message' | 'hint'>;
  readonly notRunning: (
    detail: ContainerDetail,
    name: string,
  ) => Pick<AppErrorData, 'message' | 'hint'>;
  /** Which step of the caller's operation the check is, for the error's `step`. */
  readonly step?: string;
}

/** A terminal's words: the default. */
const terminalRefusals: ContainerRefusals = {
  notFound: (id, nodeName) => ({
    message: `There is no container ${id} on ${nodeName}.`,
    hint: 'It may have been removed; the container list refreshes by itself.',
  }),
  notRunning: (detail, name) => ({
    message: `The container ${name} is not running (${detail.state}${detail.exitCode !== undefined ? `, exit code ${detail.exitCode}` : ''}).`,
    hint: 'A terminal needs a running container, and CRI can’t start an exited one again: open it in another container, or run its pod again (Run pod… on Pods).',
  }),
};

/** The container's status, verbose; a clear AppError when it is gone or not running. */
export async function runningContainer(
  client: FactsClient,
  containerId: string,
  nodeName: string,
  signal?: AbortSignal,
  refusals: ContainerRefusals = terminalRefusals,
): Promise<ContainerDetail> {
  const step = refusals.step !== undefined ? { step: refusals.step } : {};
  let detail: ContainerDetail;
  try {
    detail = await client.containerStatus(containerId, {
      verbose: true,
      ...(signal !== undefined && { signal }),
    });
  } catch (error) {
    if (isAppError(error) && error.code === 'not-found') {
      throw new AppError(
        {
          code: 'not-found',
          ...refusals.notFound(shortId(containerId), nodeName),
          ...(error.detail !== undefined && { detail: error.detail }),
          ...step,
        },
        { cause: error },
      );
    }
    throw error;
  }
  if (detail.state !== 'running') {
    throw new AppError({
      code: 'failed-precondition',
      ...refusals.notRunning(detail, detail.name || shortId(containerId)),
      ...step,
    });
  }
  return detail;
}

const podNameLabel = 'io.kubernetes.pod.name';
const podNamespaceLabel = 'io.kubernetes.pod.namespace';

/**
 * The monitor's name for the container: `namespace/pod › container`. The kubelet labels
 * its containers with the pod; otherwise the pod is asked (best effort: the container
 * name alone is still a useful description).
 */
export async function sessionTarget(
  client: FactsClient,
  detail: ContainerDetail,
  signal?: AbortSignal,
): Promise<SessionTarget> {
  let podName = detail.labels[podNameLabel];
  let namespace = detail.labels[podNamespaceLabel];
  if ((podName === undefined || namespace === undefined) && detail.podSandboxId !== '') {
    const pod = await client
      .podStatus(detail.podSandboxId, { timeoutMs: 5000, ...(signal !== undefined && { signal }) })
      .catch(factsLog.failure("The pod's name for the session title could not be read"));
    podName ??= pod?.name;
    namespace ??= pod?.namespace;
  }
  const containerName = detail.name || shortId(detail.id);
  const pod = podName !== undefined ? `${namespace ? `${namespace}/` : ''}${podName}` : undefined;
  return {
    description: pod !== undefined ? `${pod} › ${containerName}` : containerName,
    containerId: detail.id,
    containerName,
    ...(detail.podSandboxId !== '' && { podSandboxId: detail.podSandboxId }),
    ...(podName !== undefined && { podName }),
    ...(namespace !== undefined && { namespace }),
  };
}
