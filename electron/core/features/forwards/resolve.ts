/**
 * Which sandbox a forward goes to. Sandboxes are replaced when a pod is deleted and
 * re-created (or recreated by the kubelet): a new id, the same namespace/name. A forward
 * follows the pod, not the sandbox: it looks the pod up again by what identifies it.
 */
import { AppError } from '../../../../shared/errors';
import type { ForwardPod, ForwardTarget, PodSandbox } from '../../../../shared/model';
import type { CallOptions, CriClient } from '../../base/cri';

/** What a forward needs from the runtime. */
export type ForwardRuntime = Pick<CriClient, 'portForward' | 'listPods' | 'podStatus'>;

/** How a forward finds its pod again after the sandbox was replaced. */
export type PodIdentity =
  | { readonly kind: 'name'; readonly namespace: string; readonly name: string }
  | {
      readonly kind: 'labels';
      readonly labels: Readonly<Record<string, string>>;
      readonly namespace?: string;
    }
  | { readonly kind: 'sandbox'; readonly podSandboxId: string };

export function identityOf(target: ForwardTarget): PodIdentity {
  switch (target.kind) {
    case 'pod':
      return { kind: 'name', namespace: target.namespace, name: target.name };
    case 'labels':
      return {
        kind: 'labels',
        labels: target.labels,
        ...(target.namespace !== undefined && { namespace: target.namespace }),
      };
    case 'sandbox':
      return { kind: 'sandbox', podSandboxId: target.podSandboxId };
  }
}

export function describeIdentity(identity: PodIdentity): string {
  switch (identity.kind) {
    case 'name':
      return `${identity.namespace}/${identity.name}`;
    case 'labels': {
      const selector = Object.entries(identity.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(',');
      return identity.namespace !== undefined
        ? `${identity.namespace}/{${selector}}`
        : `{${selector}}`;
    }
    case 'sandbox':
      return `sandbox ${identity.podSandboxId.slice(0, 13)}`;
  }
}

export function toForwardPod(pod: PodSandbox): ForwardPod {
  return { podSandboxId: pod.id, namespace: pod.namespace, name: pod.name, uid: pod.uid };
}

/** The newest of several ready sandboxes: a replacement is newer than what it replaced. */
function newest(pods: readonly PodSandbox[]): PodSandbox | undefined {
  return pods.reduce<PodSandbox | undefined>(
    (best, pod) => (best === undefined || pod.createdAt > best.createdAt ? pod : best),
    undefined,
  );
}

function noReadyPod(identity: PodIdentity): AppError {
  return new AppError({
    code: 'not-found',
    message: `No ready pod ${identity.kind === 'labels' ? 'matches' : 'named'} ${describeIdentity(identity)}.`,
    hint: 'The forward waits for one; check the pod on this node.',
  });
}

/** A ready sandbox for `identity`; throws a 'not-found' AppError when there is none. */
export async function findReadyPod(
  runtime: ForwardRuntime,
  identity: PodIdentity,
  options: CallOptions = {},
): Promise<ForwardPod> {
  switch (identity.kind) {
    case 'sandbox': {
      let pod: PodSandbox;
      try {
        pod = await runtime.podStatus(identity.podSandboxId, options);
      } catch (error) {
        if (error instanceof AppError && error.code === 'not-found') throw noReadyPod(identity);
        throw error;
      }
      if (pod.state !== 'ready') throw noReadyPod(identity);
      return toForwardPod(pod);
    }
    case 'name': {
      const pods = await runtime.listPods({ state: 'ready' }, options);
      const match = newest(
        pods.filter((p) => p.namespace === identity.namespace && p.name === identity.name),
      );
      if (match === undefined) throw noReadyPod(identity);
      return toForwardPod(match);
    }
    case 'labels': {
      const pods = await runtime.listPods({ state: 'ready', labels: identity.labels }, options);
      const match = newest(
        pods.filter((p) => identity.namespace === undefined || p.namespace === identity.namespace),
      );
      if (match === undefined) throw noReadyPod(identity);
      return toForwardPod(match);
    }
  }
}

/**
 * Is the sandbox still there and ready? `undefined` when the runtime could not say (e.g. the
 * CRI socket is briefly unavailable): the stream session may well still work.
 */
export async function isPodReady(
  runtime: ForwardRuntime,
  podSandboxId: string,
  options: CallOptions = {},
): Promise<boolean | undefined> {
  try {
    return (await runtime.podStatus(podSandboxId, options)).state === 'ready';
  } catch (error) {
    if (error instanceof AppError && error.code === 'not-found') return false;
    return undefined;
  }
}
