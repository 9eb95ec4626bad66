import type { EpochMillis } from './common';

/**
 * A node's timeline (a flight recorder): every container and pod sandbox lifecycle event
 * Porthole saw on a connected node, kept across restarts of Porthole (bounded).
 *
 * - `created`: a container was created; `attempt` > 0 is a restart (the kubelet makes a
 *   new container with the next attempt number for each restart).
 * - `started`, `exited` (with `exitCode` and `reason`: OOMKilled, Error, Completed…),
 *   `removed`.
 * - `pod-ready` (a sandbox was run), `pod-notready` (stopped, or its network went away),
 *   `pod-removed`.
 */
export type TimelineKind =
  'created' | 'started' | 'exited' | 'removed' | 'pod-ready' | 'pod-notready' | 'pod-removed';

export const timelineKinds: readonly TimelineKind[] = [
  'created',
  'started',
  'exited',
  'removed',
  'pod-ready',
  'pod-notready',
  'pod-removed',
];

export interface TimelineEvent {
  /** Increasing in the order Porthole recorded the events, unique across restarts. */
  readonly seq: number;
  readonly nodeId: string;
  /**
   * When it happened: the runtime's own time where it reports one (a container's
   * creation, start and finish, a pod's creation), else when Porthole saw the change.
   */
  readonly time: EpochMillis;
  /** When Porthole recorded it. */
  readonly seenAt: EpochMillis;
  readonly kind: TimelineKind;
  /** How the node was being read: its runtime's events (GetContainerEvents) or list diffs. */
  readonly source: 'events' | 'polling';
  readonly podId: string;
  readonly podName: string;
  readonly namespace: string;
  /** Container events only. */
  readonly containerId?: string;
  readonly containerName?: string;
  readonly attempt?: number;
  /** `exited` only, when the runtime still had the container to ask. */
  readonly exitCode?: number;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * The `timeline` event: every event kept (`reset: true` on the first message; a long
 * history comes in several messages, the later ones `reset: false`), then each new batch.
 * A reset with no events follows a clear.
 */
export interface TimelineUpdate {
  readonly reset: boolean;
  readonly events: readonly TimelineEvent[];
}

export const timelineLimits = {
  /** Events held in memory, in the core and in a view (see trimTimeline for which go). */
  maxEvents: 10_000,
  /** The file in the config directory: the oldest events are left out to stay under it. */
  maxFileBytes: 4 * 1024 * 1024,
  /** Events in one message of a subscription's first batch. */
  resetChunk: 1000,
} as const;

/**
 * The events kept when there are more than `max`, in their order. The excess goes from the
 * nodes that hold the most, each losing its oldest, so that a noisy node (a crash loop, a
 * busy CI node) can't push a quiet node's history out: every node keeps at least an even
 * share. The core and a view trim with this one rule, so both keep the same events.
 */
export function trimTimeline(events: readonly TimelineEvent[], max: number): TimelineEvent[] {
  const excess = events.length - Math.max(0, max);
  if (excess <= 0) return [...events];
  const keep = keptPerNode(countByNode(events), excess);
  const seen = new Map<string, number>();
  const kept: TimelineEvent[] = [];
  // Newest first, so that each node's newest `keep` events are the ones kept.
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event === undefined) continue;
    const count = seen.get(event.nodeId) ?? 0;
    if (count >= (keep.get(event.nodeId) ?? Infinity)) continue;
    seen.set(event.nodeId, count + 1);
    kept.push(event);
  }
  return kept.reverse();
}

function countByNode(events: readonly TimelineEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.nodeId, (counts.get(event.nodeId) ?? 0) + 1);
  return counts;
}

/**
 * How many events each node may keep so that `excess` go, taken from the largest counts
 * down (water-filling): the k largest are lowered to one level, the first k for which
 * lowering them to the next count would remove enough. Nodes not in the result keep all.
 */
function keptPerNode(counts: ReadonlyMap<string, number>, excess: number): Map<string, number> {
  // Largest first; ties by node id, so that every caller picks the same nodes.
  const sorted = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  let total = 0;
  let k = 0;
  while (k < sorted.length) {
    total += sorted[k]?.[1] ?? 0;
    k += 1;
    const next = sorted[k]?.[1] ?? 0;
    if (total - k * next >= excess) break;
  }
  const remaining = total - excess;
  const level = Math.floor(remaining / k);
  let extra = remaining - level * k;
  const keep = new Map<string, number>();
  for (const [nodeId] of sorted.slice(0, k)) {
    keep.set(nodeId, level + (extra > 0 ? 1 : 0));
    extra -= 1;
  }
  return keep;
}

/** The events as JSON lines, one object per event, oldest first as given. */
export function timelineJsonLines(events: readonly TimelineEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
