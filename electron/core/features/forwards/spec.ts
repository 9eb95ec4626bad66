import { AppError } from '../../../../shared/errors';
import type { ForwardSpec } from '../../../../shared/model';

function invalid(message: string, hint?: string): AppError {
  return new AppError({
    code: 'invalid-argument',
    message,
    ...(hint !== undefined && { hint }),
  });
}

function isPort(value: number, min: number): boolean {
  return Number.isInteger(value) && value >= min && value <= 65535;
}

/** Checks a spec from the UI (or anywhere): throws an 'invalid-argument' AppError. */
export function validateSpec(spec: ForwardSpec): void {
  const target = spec.target;
  switch (target.kind) {
    case 'pod':
      if (target.name === '' || target.namespace === '') {
        throw invalid('A pod target needs a namespace and a name.');
      }
      break;
    case 'labels':
      if (Object.keys(target.labels).length === 0) {
        throw invalid('A label target needs at least one label.');
      }
      break;
    case 'sandbox':
      if (target.podSandboxId === '') throw invalid('A sandbox target needs a sandbox id.');
      break;
  }
  if (spec.ports.length === 0) throw invalid('A forward needs at least one port.');
  const seen = new Set<number>();
  for (const { localPort, remotePort } of spec.ports) {
    if (!isPort(remotePort, 1)) {
      throw invalid(`${remotePort} is not a valid pod port.`, 'Pod ports go from 1 to 65535.');
    }
    if (!isPort(localPort, 0)) {
      throw invalid(
        `${localPort} is not a valid local port.`,
        'Local ports go from 1 to 65535, or 0 to let Porthole pick a free one.',
      );
    }
    if (localPort !== 0 && seen.has(localPort)) {
      throw invalid(`Local port ${localPort} is given twice.`);
    }
    seen.add(localPort);
  }
  if (spec.addresses?.some((address) => address.trim() === '')) {
    throw invalid('A listen address is empty.');
  }
  if (
    spec.transport !== undefined &&
    spec.transport !== 'auto' &&
    spec.transport !== 'spdy' &&
    spec.transport !== 'websocket'
  ) {
    throw invalid(`Unknown transport "${String(spec.transport)}".`);
  }
}

/** Only this machine can reach it: 127.0.0.0/8, ::1 (also written as ::ffff:127.x.y.z). */
function isLoopbackAddress(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
}

/**
 * The listen addresses of `spec` that other machines can reach, e.g. `0.0.0.0`; none for
 * the loopback default. Such a forward is created only when the caller confirms it, and
 * never started unattended (see the forward manager).
 */
export function addressesBeyondLoopback(spec: ForwardSpec): string[] {
  return (spec.addresses ?? []).filter((address) => !isLoopbackAddress(address));
}
