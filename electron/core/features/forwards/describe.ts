/**
 * Forwards in words: the default name of a forward, and what the session monitor shows
 * for it (its target and its `127.0.0.1:8080 → 80` detail).
 */
import type {
  BoundPort,
  ForwardPod,
  ForwardSpec,
  ForwardTarget,
  SessionTarget,
} from '../../../../shared/model';
import { formatAddress } from '../../base/streaming/portforward';

export function describeTarget(target: ForwardTarget): string {
  switch (target.kind) {
    case 'pod':
      return `${target.namespace}/${target.name}`;
    case 'labels': {
      const selector = Object.entries(target.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(',');
      return target.namespace === undefined ? `{${selector}}` : `${target.namespace}/{${selector}}`;
    }
    case 'sandbox':
      return `sandbox ${target.podSandboxId.slice(0, 13)}`;
  }
}

/** `8080→80, 9000` as kubectl writes port pairs; a bare pod port where the local one is picked. */
export function describePorts(spec: ForwardSpec): string {
  return spec.ports
    .map((port) =>
      port.localPort === 0 ? `${port.remotePort}` : `${port.localPort}→${port.remotePort}`,
    )
    .join(', ');
}

/** The name a forward has until the user gives it one. */
export function defaultForwardName(spec: ForwardSpec): string {
  return `${describeTarget(spec.target)} ${describePorts(spec)}`;
}

/**
 * `127.0.0.1:8080 → 80`, one per port, once the ports are bound; before that, what the
 * spec asks for (`auto → 80` where Porthole picks the local port).
 */
export function describeBinding(spec: ForwardSpec, bound: readonly BoundPort[]): string {
  if (bound.length === 0) {
    const address = spec.addresses?.[0] ?? '127.0.0.1';
    return spec.ports
      .map((port) =>
        port.localPort === 0
          ? `auto → ${port.remotePort}`
          : `${formatAddress(address, port.localPort)} → ${port.remotePort}`,
      )
      .join(', ');
  }
  return bound
    .map(
      (port) => `${formatAddress(port.addresses[0] ?? '?', port.localPort)} → ${port.remotePort}`,
    )
    .join(', ');
}

/** What the monitor's target column shows: the pod (once found) and its ports. */
export function sessionTargetOf(spec: ForwardSpec, pod: ForwardPod | undefined): SessionTarget {
  const ports = spec.ports.map((port) => `:${port.remotePort}`).join(' ');
  if (pod !== undefined) {
    return {
      description: `${pod.namespace}/${pod.name} ${ports}`,
      podSandboxId: pod.podSandboxId,
      podName: pod.name,
      namespace: pod.namespace,
    };
  }
  const target = spec.target;
  return {
    description: `${describeTarget(target)} ${ports}`,
    ...(target.kind === 'pod' && { podName: target.name, namespace: target.namespace }),
    ...(target.kind === 'sandbox' && { podSandboxId: target.podSandboxId }),
    ...(target.kind === 'labels' &&
      target.namespace !== undefined && { namespace: target.namespace }),
  };
}
