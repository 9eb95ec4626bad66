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
  /** Events held in memory (the oldest go first), in the core and in a view. */
  maxEvents: 10_000,
  /** The file in the config directory: the oldest events are left out to stay under it. */
  maxFileBytes: 4 * 1024 * 1024,
  /** Events in one message of a subscription's first batch. */
  resetChunk: 1000,
} as const;

/** The events as JSON lines, one object per event, oldest first as given. */
export function timelineJsonLines(events: readonly TimelineEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
