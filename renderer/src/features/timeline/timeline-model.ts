/**
 * What the Timeline view shows of the recorded events: the zoom window, the filters, the
 * crash loops, and which log an event opens.
 */
import type { Container, OnNode, TimelineEvent, TimelineKind } from '../../../../shared/model';

export type KindFilter = 'all' | 'exits' | 'restarts' | 'containers' | 'pods' | TimelineKind;

export const kindFilters: readonly { readonly value: KindFilter; readonly label: string }[] = [
  { value: 'all', label: 'All kinds' },
  { value: 'exits', label: 'Exits' },
  { value: 'restarts', label: 'Restarts' },
  { value: 'containers', label: 'Container events' },
  { value: 'pods', label: 'Pod sandbox events' },
  { value: 'created', label: 'Created' },
  { value: 'started', label: 'Started' },
  { value: 'exited', label: 'Exited' },
  { value: 'removed', label: 'Removed' },
  { value: 'pod-ready', label: 'Pod ready' },
  { value: 'pod-notready', label: 'Pod not ready' },
  { value: 'pod-removed', label: 'Pod removed' },
];

/** The zoom levels: how far back the window reaches (undefined: everything kept). */
export const zoomLevels: readonly { readonly label: string; readonly ms: number | undefined }[] = [
  { label: '5 min', ms: 5 * 60_000 },
  { label: '15 min', ms: 15 * 60_000 },
  { label: '1 h', ms: 3_600_000 },
  { label: '6 h', ms: 6 * 3_600_000 },
  { label: '24 h', ms: 24 * 3_600_000 },
  { label: 'All', ms: undefined },
];

export interface TimelineFilter {
  readonly nodeId: string;
  /** Text in the pod's namespace/name. */
  readonly pod: string;
  /** Text in the container's name. */
  readonly container: string;
  readonly kind: KindFilter;
}

export const emptyFilter: TimelineFilter = { nodeId: '', pod: '', container: '', kind: 'all' };

export function isRestart(event: TimelineEvent): boolean {
  return event.kind === 'created' && (event.attempt ?? 0) > 0;
}

function kindMatches(event: TimelineEvent, kind: KindFilter): boolean {
  if (kind === 'all') return true;
  if (kind === 'exits') return event.kind === 'exited';
  if (kind === 'restarts') return isRestart(event);
  if (kind === 'containers') return event.containerId !== undefined;
  if (kind === 'pods') return event.containerId === undefined;
  return event.kind === kind;
}

export function matches(event: TimelineEvent, filter: TimelineFilter): boolean {
  if (filter.nodeId !== '' && event.nodeId !== filter.nodeId) return false;
  const pod = filter.pod.trim().toLowerCase();
  if (pod !== '' && !`${event.namespace}/${event.podName}`.toLowerCase().includes(pod)) {
    return false;
  }
  const container = filter.container.trim().toLowerCase();
  if (container !== '' && !(event.containerName ?? '').toLowerCase().includes(container)) {
    return false;
  }
  return kindMatches(event, filter.kind);
}

/** The events in the window ending at `now`, newest first, that pass the filter. */
export function visibleEvents(
  events: readonly TimelineEvent[],
  filter: TimelineFilter,
  windowMs: number | undefined,
  now: number,
): TimelineEvent[] {
  const from = windowMs === undefined ? -Infinity : now - windowMs;
  return events
    .filter((event) => event.time >= from && matches(event, filter))
    .sort((a, b) => b.time - a.time || b.seq - a.seq);
}

/** A container of a pod across its attempts: `<nodeId>/<podId>/<name>`. */
export function containerSlot(event: TimelineEvent): string | undefined {
  if (event.containerName === undefined) return undefined;
  return `${event.nodeId}/${event.podId}/${event.containerName}`;
}

/** How many exits within how long make a crash loop (the kubelet backs off from the 2nd). */
export const crashLoop = { exits: 3, withinMs: 10 * 60_000 } as const;

export interface CrashLoop {
  readonly slot: string;
  readonly nodeId: string;
  readonly podName: string;
  readonly namespace: string;
  readonly containerName: string;
  /** Failed exits (not Completed) within `crashLoop.withinMs` of the last one. */
  readonly exits: number;
  readonly lastAttempt: number;
  readonly lastExit: TimelineEvent;
}

/**
 * Containers that keep failing: at least `crashLoop.exits` failed exits (a non-zero code or
 * a reason other than Completed), on more than one attempt, within `crashLoop.withinMs` of
 * the newest one.
 */
export function crashLoops(events: readonly TimelineEvent[]): Map<string, CrashLoop> {
  const exits = new Map<string, TimelineEvent[]>();
  for (const event of events) {
    if (event.kind !== 'exited' || !failed(event)) continue;
    const slot = containerSlot(event);
    if (slot === undefined) continue;
    let list = exits.get(slot);
    if (list === undefined) exits.set(slot, (list = []));
    list.push(event);
  }
  const loops = new Map<string, CrashLoop>();
  for (const [slot, list] of exits) {
    const last = list.reduce((a, b) => (b.time > a.time ? b : a));
    const recent = list.filter((event) => last.time - event.time <= crashLoop.withinMs);
    const attempts = new Set(recent.map((event) => event.attempt ?? 0));
    if (recent.length < crashLoop.exits || attempts.size < 2) continue;
    loops.set(slot, {
      slot,
      nodeId: last.nodeId,
      podName: last.podName,
      namespace: last.namespace,
      containerName: last.containerName ?? '',
      exits: recent.length,
      lastAttempt: Math.max(...attempts),
      lastExit: last,
    });
  }
  return loops;
}

function failed(event: TimelineEvent): boolean {
  if (event.exitCode !== undefined) return event.exitCode !== 0;
  return event.reason !== undefined && event.reason !== 'Completed';
}

/** Which log an event opens, with which options (see logsLinkOf). */
export interface LogsLink {
  readonly containerId: string;
  readonly previous: boolean;
  /** Lines from this moment on (a start, a creation). */
  readonly since?: number;
  readonly why: string;
}

/**
 * The log of that container at that moment. An exit opens the attempt that exited: the
 * container itself while the runtime still has it (its own log is the previous attempt's
 * once a newer one runs), else the next attempt's `previous` log. A start or a creation
 * opens the container's log from that moment on.
 */
export function logsLinkOf(
  event: TimelineEvent,
  containers: Iterable<OnNode<Container>>,
): LogsLink | undefined {
  if (event.containerId === undefined) return undefined;
  let present = false;
  let next: OnNode<Container> | undefined;
  for (const container of containers) {
    if (container.nodeId !== event.nodeId) continue;
    if (container.id === event.containerId) present = true;
    else if (
      container.podSandboxId === event.podId &&
      container.name === event.containerName &&
      container.attempt === (event.attempt ?? 0) + 1
    ) {
      next = container;
    }
  }
  if (event.kind === 'exited') {
    if (!present && next !== undefined) {
      return { containerId: next.id, previous: true, why: 'the previous attempt’s log' };
    }
    return { containerId: event.containerId, previous: false, why: 'the log of that attempt' };
  }
  if (event.kind === 'created' || event.kind === 'started') {
    return {
      containerId: event.containerId,
      previous: false,
      since: event.time,
      why: 'its log from that moment',
    };
  }
  return { containerId: event.containerId, previous: false, why: 'its log' };
}

/** "exited 137 OOMKilled", "restart (attempt 3)", "pod ready"… */
export function describeEvent(event: TimelineEvent): string {
  switch (event.kind) {
    case 'created':
      return isRestart(event) ? `restarted (attempt ${event.attempt})` : 'created';
    case 'started':
      return 'started';
    case 'exited': {
      const parts = ['exited'];
      if (event.exitCode !== undefined) parts.push(`code ${event.exitCode}`);
      if (event.reason !== undefined && event.reason !== '') parts.push(event.reason);
      return parts.join(' · ');
    }
    case 'removed':
      return 'removed';
    case 'pod-ready':
      return 'pod ready';
    case 'pod-notready':
      return 'pod not ready';
    case 'pod-removed':
      return 'pod removed';
  }
}
