/**
 * Forwards as the table shows them: a display state (stopped when nothing runs), local
 * URLs to open or copy, and the text the filter searches.
 */
import type { AppErrorData } from '../../../../shared/errors';
import type { BoundPort, ForwardEntry, ForwardTarget } from '../../../../shared/model';
import type { Tone } from '../../ui/Badge';
import { formatCount } from '../../ui/format';

export type ForwardDisplayState = 'starting' | 'active' | 'reconnecting' | 'failed' | 'stopped';

export interface ForwardRow {
  readonly key: string;
  readonly entry: ForwardEntry;
  readonly nodeName: string;
  readonly state: ForwardDisplayState;
  /** Why it is in that state, in one sentence. */
  readonly reason: string;
  /** The error worth showing: the run's last one, or why it stopped. */
  readonly error?: AppErrorData;
  readonly urls: readonly LocalUrl[];
  readonly search: string;
}

export interface LocalUrl {
  readonly remotePort: number;
  /** What to open: http://127.0.0.1:38211 */
  readonly href: string;
  /** Where it listens, when that is more than loopback: `0.0.0.0:38211`. */
  readonly listen: string;
}

export const stateTones: Readonly<Record<ForwardDisplayState, Tone>> = {
  starting: 'info',
  active: 'ok',
  reconnecting: 'warn',
  failed: 'danger',
  stopped: 'neutral',
};

export function describeTarget(target: ForwardTarget): string {
  switch (target.kind) {
    case 'pod':
      return `${target.namespace}/${target.name}`;
    case 'labels':
      return Object.entries(target.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(',');
    case 'sandbox':
      return `sandbox ${target.podSandboxId.slice(0, 13)}`;
  }
}

function hostFor(address: string): string {
  // A wildcard listens on loopback too: the browser on this machine goes there.
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return address.includes(':') ? `[${address}]` : address;
}

/** One URL per bound port, on its first address (127.0.0.1 before ::1, as the core binds them). */
export function localUrls(ports: readonly BoundPort[]): LocalUrl[] {
  return ports.map((port) => {
    const address = port.addresses[0] ?? '127.0.0.1';
    const listen = port.addresses
      .map((a) => (a.includes(':') ? `[${a}]:${port.localPort}` : `${a}:${port.localPort}`))
      .join(', ');
    return {
      remotePort: port.remotePort,
      href: `http://${hostFor(address)}:${port.localPort}`,
      listen,
    };
  });
}

/**
 * The row of one forward. `nodeName` is the node's name from the node list, when it is
 * there; a forward whose node was removed is named after the node it was on.
 */
export function forwardRow(entry: ForwardEntry, nodeName?: string): ForwardRow {
  const live = entry.live;
  const orphaned = entry.orphaned === true;
  // Not running with an error: it failed (to start, or gave up reconnecting), unless it
  // was stopped because its node went away, which says so in its reason.
  const stoppedAs: ForwardDisplayState =
    !orphaned && entry.lastError !== undefined && entry.lastError.code !== 'connection-lost'
      ? 'failed'
      : 'stopped';
  const state: ForwardDisplayState = live?.state.name ?? stoppedAs;
  const reason = orphaned
    ? `${entry.nodeName} was removed: move the forward to another node to use it.`
    : (live?.state.reason ??
      (entry.lastError !== undefined ? entry.lastError.message : 'Stopped.'));
  const node = orphaned ? `${entry.nodeName} (removed)` : (nodeName ?? entry.nodeName);
  const error = live !== undefined ? (live.state.error ?? live.metrics.lastError) : entry.lastError;
  const urls = live === undefined ? [] : localUrls(live.ports);
  return {
    key: entry.id,
    entry,
    nodeName: node,
    state,
    reason,
    ...(error !== undefined && { error }),
    urls,
    search: [
      entry.name,
      describeTarget(entry.spec.target),
      live?.pod?.name ?? '',
      node,
      state,
      ...entry.spec.ports.map((port) => String(port.remotePort)),
      ...urls.map((url) => url.href),
    ]
      .join(' ')
      .toLowerCase(),
  };
}

/** Rows matching every word of the filter. */
export function filterRows(rows: readonly ForwardRow[], text: string): readonly ForwardRow[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return rows;
  return rows.filter((row) => words.every((word) => row.search.includes(word)));
}

export function isRunning(row: ForwardRow): boolean {
  return row.state !== 'stopped' && row.state !== 'failed';
}

const summaryOrder: readonly ForwardDisplayState[] = [
  'active',
  'reconnecting',
  'starting',
  'failed',
  'stopped',
];

/**
 * "3 forwards: 1 active, 1 reconnecting, 1 stopped": each state counted as it is, so a
 * forward that is reconnecting is never counted as running fine.
 */
export function stateSummary(rows: readonly ForwardRow[]): string {
  const counts = new Map<ForwardDisplayState, number>();
  for (const row of rows) counts.set(row.state, (counts.get(row.state) ?? 0) + 1);
  const parts = summaryOrder.flatMap((state) => {
    const count = counts.get(state) ?? 0;
    return count === 0 ? [] : [`${formatCount(count)} ${state}`];
  });
  const total = `${formatCount(rows.length)} ${rows.length === 1 ? 'forward' : 'forwards'}`;
  return parts.length === 0 ? total : `${total}: ${parts.join(', ')}`;
}

/**
 * What the URL column says of a forward that is not listening: never a port that looks
 * like a local one ("8080" is the pod's).
 */
export function notListeningText(entry: ForwardEntry): string {
  const fixed = entry.spec.ports.filter((port) => port.localPort !== 0);
  if (fixed.length === 0) return 'not listening';
  return `not listening (will use ${fixed.map((port) => `:${port.localPort}`).join(' ')})`;
}
