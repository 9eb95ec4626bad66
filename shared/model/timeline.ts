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
  /** Events held in memory, in the core and in a view (see BoundedTimeline for which go). */
  maxEvents: 10_000,
  /** The file in the config directory: the oldest events are left out to stay under it. */
  maxFileBytes: 4 * 1024 * 1024,
  /** Events in one message of a subscription's first batch. */
  resetChunk: 1000,
} as const;

/**
 * The events kept, at most `max`, oldest first. When a batch brings more, the node holding
 * the most loses its oldest event, one at a time (among nodes holding as many, the one whose
 * id sorts last), so a noisy node (a crash loop, a busy CI node) can't push a quiet node's
 * history out. The core and a view keep their events with this one rule and the same
 * batches, so both keep the same events. An eviction costs O(nodes + events held), not a
 * recount: a fleet evicts a few events a second once full.
 */
export class BoundedTimeline {
  private items: TimelineEvent[] = [];
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** What is kept, oldest first. The array changes with add: copy it to keep a view of it. */
  get events(): readonly TimelineEvent[] {
    return this.items;
  }

  /** Keeps only these (trimmed by the rule as if added in one batch). */
  reset(events: readonly TimelineEvent[]): void {
    this.items = [];
    this.counts.clear();
    this.add(events);
  }

  add(events: readonly TimelineEvent[]): void {
    for (const event of events) {
      this.items.push(event);
      this.counts.set(event.nodeId, (this.counts.get(event.nodeId) ?? 0) + 1);
    }
    while (this.items.length > Math.max(0, this.max)) this.evictOne();
  }

  private evictOne(): void {
    let noisiest: string | undefined;
    let most = 0;
    for (const [nodeId, count] of this.counts) {
      if (count > most || (count === most && noisiest !== undefined && nodeId > noisiest)) {
        noisiest = nodeId;
        most = count;
      }
    }
    const index = this.items.findIndex((event) => event.nodeId === noisiest);
    if (noisiest === undefined || index < 0) return;
    this.items.splice(index, 1);
    if (most === 1) this.counts.delete(noisiest);
    else this.counts.set(noisiest, most - 1);
  }
}

/** The events as JSON lines, one object per event, oldest first as given. */
export function timelineJsonLines(events: readonly TimelineEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
