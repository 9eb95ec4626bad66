import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import { MutableDisposable, toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { Container, Image, PodSandbox, ResourceDelta } from '../../../../shared/model';
import type { ContainerEvent, CriClient } from '../../base/cri';
import { logger } from '../../base/log';
import { TaskQueue } from '../../base/tasks';
import { ChangeSet, applyEvents } from './apply-events';
import { RecentStatuses } from './recent-statuses';
import { RowTable, sameContainerVersion, sameImageVersion, samePodVersion } from './rows';

const watchLog = logger('nodes');

/** What the watcher needs from a node's client. */
export type WatchedClient = Pick<
  CriClient,
  'listPods' | 'listContainers' | 'listImages' | 'watchContainerEvents'
>;

export interface WatcherTimings {
  /** Polling interval when the runtime has no event stream. */
  readonly pollIntervalMs: number;
  /**
   * While events flow, a full re-list now and then checks that no event was missed (and
   * reads the images, which have no events): `checkPerRowMs` per row of the node, within
   * these bounds, so a large node is checked less often than a small one.
   */
  readonly checkMinMs: number;
  readonly checkMaxMs: number;
  readonly checkPerRowMs: number;
  /** After the event stream fails, poll fast and try the stream again this much later. */
  readonly eventsRetryMs: number;
}

export const defaultWatcherTimings: WatcherTimings = {
  pollIntervalMs: 2000,
  checkMinMs: 30_000,
  checkMaxMs: 300_000,
  checkPerRowMs: 400,
  eventsRetryMs: 10_000,
};

export interface ResourceWatcherOptions {
  readonly nodeId: string;
  /** For the log. */
  readonly name?: string;
  readonly client: WatchedClient;
  /** Use GetContainerEvents (the runtime supports it) instead of polling. */
  readonly useEvents: boolean;
  readonly timings?: Partial<WatcherTimings>;
  /** Full re-lists wait their turn here (one queue for the fleet); a private one if absent. */
  readonly lists?: TaskQueue;
  /** Hears each full re-list's outcome: undefined when the runtime answered. */
  readonly onHealth?: (error: AppError | undefined) => void;
  /** The runtime said something (a list answered, an event came): it is alive. */
  readonly onAlive?: () => void;
  /**
   * Hears that the event stream is unsupported after all, or switched off on the node (it
   * ended at once, with OK and no events): the watcher then polls, and stops trying it.
   */
  readonly onEventsUnsupported?: () => void;
}

interface Snapshot {
  readonly pods: RowTable<PodSandbox>;
  readonly containers: RowTable<Container>;
  readonly images: RowTable<Image>;
}

/**
 * Keeps one node's pods, containers and images fresh for any number of subscribers. A
 * new subscriber first gets the whole current state with `reset: true`, then deltas.
 *
 * With runtime events (GetContainerEvents), each event updates its rows from its own
 * payload: the cost of a change does not grow with the size of the node. A container or
 * pod the watcher has not seen yet is read alone (a list filtered by its id). A full
 * re-list runs now and then as a consistency check (see WatcherTimings); what it finds
 * that the events missed is logged. Without events, it polls. Images are read with the
 * first list, by the consistency check, and when Porthole pulled or removed one.
 */
export class ResourceWatcher implements Disposable {
  private readonly timings: WatcherTimings;
  private readonly lists: TaskQueue;
  private readonly sinks = new Set<EventSink<ResourceDelta>>();
  private snapshot: Snapshot | undefined;
  private useEvents: boolean;
  /** The runtime's event stream, while it is followed. */
  private readonly events = new MutableDisposable<Disposable>();
  /** Events not applied yet: they wait for the next turn, or for a full list under way. */
  private pendingEvents: ContainerEvent[] = [];
  private applyScheduled = false;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  /** The pending re-list comes at the polling pace (see scheduleNext). */
  private pollingSoon = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshing = false;
  private dirty: { images: boolean } | undefined;
  private disposed = false;
  /** Moves on each resume: a read begun before it must not change the new snapshot. */
  private generation = 0;
  /** The runtime is down: no polling, no event stream, no refreshes until resume(). */
  private suspended = false;
  private readonly refreshed = new Set<() => void>();
  private imagesReadAt = 0;
  private readonly statuses = new RecentStatuses();

  constructor(private readonly options: ResourceWatcherOptions) {
    this.timings = { ...defaultWatcherTimings, ...options.timings };
    this.lists = options.lists ?? new TaskQueue(1);
    this.useEvents = options.useEvents;
    this.begin();
  }

  get mode(): 'events' | 'polling' {
    return this.events.value !== undefined ? 'events' : 'polling';
  }

  get subscriberCount(): number {
    return this.sinks.size;
  }

  subscribe(sink: EventSink<ResourceDelta>): Disposable {
    this.sinks.add(sink);
    if (this.snapshot !== undefined) sink.next(this.reset(this.snapshot));
    return toDisposable(() => this.sinks.delete(sink));
  }

  /**
   * The runtime is gone for now: stop asking it. Subscribers stay, and keep the last
   * state they were sent.
   */
  suspend(): void {
    if (this.disposed || this.suspended) return;
    this.suspended = true;
    this.events.clear();
    this.pendingEvents = [];
    this.statuses.clear();
    this.clearTimers();
  }

  /**
   * The runtime is back, and may have changed while away (restarted, upgraded): every
   * subscriber gets a reset with the state read now, then deltas again, from events when
   * `useEvents` (the runtime as it is now supports them) or by polling.
   */
  resume(useEvents: boolean): void {
    if (this.disposed) return;
    this.suspended = false;
    this.events.clear();
    this.pendingEvents = [];
    this.statuses.clear();
    this.clearTimers();
    this.snapshot = undefined;
    this.generation += 1;
    this.useEvents = useEvents;
    this.begin();
  }

  /** Asks for a full re-list now (images too when `images`). */
  refresh(what: { images?: boolean } = {}): void {
    if (this.disposed || this.suspended) return;
    const images = what.images === true;
    if (this.refreshing) {
      this.dirty = { images: images || (this.dirty?.images ?? false) };
      return;
    }
    void this.runRefreshes(images);
  }

  /** Resolves after the next full re-list is sent (for callers that just changed something). */
  refreshNow(what: { images?: boolean } = {}): Promise<void> {
    if (this.disposed || this.suspended) return Promise.resolve();
    return new Promise((resolve) => {
      this.refreshed.add(resolve);
      this.refresh(what);
    });
  }

  /**
   * A container's status as a runtime event carried it lately (see RecentStatuses), or
   * undefined: then only a ContainerStatus call says.
   */
  recentStatus(containerId: string): ReturnType<RecentStatuses['get']> {
    return this.statuses.get(containerId);
  }

  /** Ends every subscription with `error` (e.g. the node was disconnected). */
  fail(error: AppError): void {
    const sinks = [...this.sinks];
    this.sinks.clear();
    for (const sink of sinks) sink.error(error);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.events.dispose();
    this.clearTimers();
    this.sinks.clear();
    this.pendingEvents = [];
    for (const resolve of this.refreshed) resolve();
    this.refreshed.clear();
  }

  // ---- triggers -------------------------------------------------------------------

  private begin(): void {
    if (this.useEvents) this.startEvents();
    this.refresh({ images: true });
  }

  private startEvents(): void {
    let received = false;
    this.events.value = this.options.client.watchContainerEvents({
      next: (event) => {
        received = true;
        this.options.onAlive?.();
        this.pendingEvents.push(event);
        this.scheduleApply();
      },
      error: (error) => this.onEventsEnded(error, received),
      complete: () => this.onEventsEnded(undefined, received),
    });
  }

  private onEventsEnded(error: AppError | undefined, received: boolean): void {
    // The stream ended by itself: there is nothing left to dispose.
    this.events.take();
    if (this.disposed || this.suspended) return;
    // Events may have been lost while the stream was down; from now on, poll.
    this.refresh();
    // OK with no event at all is a runtime with events switched off, not a dropped stream:
    // subscribing again every few seconds would only end the same way.
    const off = error === undefined && !received;
    if (error?.code === 'unimplemented' || off) {
      this.useEvents = false;
      this.options.onEventsUnsupported?.();
      return;
    }
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.disposed || this.suspended || !this.useEvents) return;
      this.startEvents();
      // Whatever changed while the stream was away is read once more.
      this.refresh();
    }, this.timings.eventsRetryMs);
  }

  /**
   * The next full re-list: soon while polling, a consistency check while events flow. A
   * pod that is not ready may be removed without a word: CRI-O (1.36) sends no event for
   * RemovePodSandbox, neither for the pod nor for the containers it takes along. While the
   * node has such a pod, it is re-listed at the polling pace even with events, so that its
   * removal shows in seconds, not at the next check.
   */
  private scheduleNext(): void {
    if (this.pollTimer !== undefined) clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    if (this.disposed || this.suspended) return;
    const soon = this.mode === 'polling' || this.hasUnreadyPod();
    this.pollingSoon = soon;
    this.pollTimer = setTimeout(
      () => {
        this.pollTimer = undefined;
        this.refresh({ images: this.imagesDue() });
      },
      soon ? this.timings.pollIntervalMs : this.checkIntervalMs(),
    );
  }

  private hasUnreadyPod(): boolean {
    return this.snapshot?.pods.values().some((pod) => pod.state !== 'ready') ?? false;
  }

  private checkIntervalMs(): number {
    const rows = this.snapshot === undefined ? 0 : rowCount(this.snapshot);
    const { checkMinMs, checkMaxMs, checkPerRowMs } = this.timings;
    return Math.min(checkMaxMs, Math.max(checkMinMs, rows * checkPerRowMs));
  }

  /** Images have no events: read with the consistency check's cadence, even while polling. */
  private imagesDue(): boolean {
    return Date.now() - this.imagesReadAt >= this.checkIntervalMs();
  }

  private clearTimers(): void {
    if (this.pollTimer !== undefined) clearTimeout(this.pollTimer);
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.pollTimer = this.retryTimer = undefined;
  }

  // ---- events ---------------------------------------------------------------------

  private scheduleApply(): void {
    if (this.applyScheduled) return;
    this.applyScheduled = true;
    // A burst (deleted, created, started) arrives in one read: applied as one delta.
    setImmediate(() => {
      this.applyScheduled = false;
      this.applyPending();
    });
  }

  private applyPending(): void {
    const snapshot = this.snapshot;
    // Before the first list, or while one runs: applied once it is in.
    if (this.disposed || this.suspended || snapshot === undefined || this.refreshing) return;
    const events = this.pendingEvents;
    this.pendingEvents = [];
    if (events.length === 0) return;
    const { changes, unknownContainers, unknownPods, statuses } = applyEvents(
      snapshot,
      events,
      this.options.nodeId,
    );
    for (const status of statuses) this.statuses.note(status);
    const delta = this.send(changes);
    // A pod just stopped: its removal may come unannounced (see scheduleNext).
    const stopped = delta?.pods.upserted.some((pod) => pod.state !== 'ready') ?? false;
    if (stopped && !this.pollingSoon && this.pollTimer !== undefined) this.scheduleNext();
    if (unknownContainers.size > 0 || unknownPods.size > 0) {
      void this.readUnknown(unknownContainers, unknownPods);
    }
  }

  /** New rows an event named: each read alone, by a list filtered by its id. */
  private async readUnknown(containers: Set<string>, pods: Set<string>): Promise<void> {
    const { client, nodeId } = this.options;
    const generation = this.generation;
    try {
      const [podRows, containerRows] = await Promise.all([
        Promise.all([...pods].map((id) => client.listPods({ id }))),
        Promise.all([...containers].map((id) => client.listContainers({ id }))),
      ]);
      const snapshot = this.snapshot;
      if (this.disposed || snapshot === undefined || this.generation !== generation) return;
      this.options.onAlive?.();
      const changes = new ChangeSet(nodeId);
      [...pods].forEach((id, index) => {
        const row = podRows[index]?.find((pod) => pod.id === id);
        if (row === undefined) changes.removePod(snapshot, id);
        else changes.putPod(snapshot, { ...row, nodeId });
      });
      [...containers].forEach((id, index) => {
        const row = containerRows[index]?.find((container) => container.id === id);
        if (row === undefined) changes.removeContainer(snapshot, id);
        else if (changes.putContainer(snapshot, { ...row, nodeId })) {
          // Read after the events that named it: newer than what they carried.
          if (row.state !== this.statuses.get(id)?.state) this.statuses.forget(id);
        }
      });
      this.send(changes);
    } catch {
      // The next consistency check reads them; the monitor judges the runtime's health.
      this.refresh();
    }
  }

  // ---- full re-lists ----------------------------------------------------------------

  private async runRefreshes(images: boolean): Promise<void> {
    this.refreshing = true;
    let withImages = images;
    try {
      for (;;) {
        this.dirty = undefined;
        const waiting = [...this.refreshed];
        this.refreshed.clear();
        // The fleet's lists take turns, with the rest of the loop between.
        await this.lists.run(() => this.refreshOnce(withImages));
        for (const resolve of waiting) resolve();
        const again = this.dirty as { images: boolean } | undefined;
        if (again === undefined || this.disposed) break;
        withImages = again.images;
      }
    } finally {
      this.refreshing = false;
    }
    // Events that came while the list ran are applied on top of it.
    this.applyPending();
    this.scheduleNext();
  }

  private async refreshOnce(withImages: boolean): Promise<void> {
    if (this.disposed || this.suspended) return;
    const { client, nodeId } = this.options;
    const generation = this.generation;
    const first = this.snapshot === undefined;
    const readImages = withImages || first;
    let lists: [PodSandbox[], Container[], Image[] | undefined];
    try {
      lists = await Promise.all([
        client.listPods(),
        client.listContainers(),
        readImages ? client.listImages() : Promise.resolve(undefined),
      ]);
    } catch (error) {
      if (!this.disposed && !this.suspended) this.options.onHealth?.(toAppError(error));
      return;
    }
    // Read before a suspend (or a resume that wants a fresh reset): out of date.
    if (this.disposed || this.suspended || this.generation !== generation) return;
    this.options.onHealth?.(undefined);
    this.options.onAlive?.();
    if (readImages) this.imagesReadAt = Date.now();
    const [pods, containers, images] = lists;
    const tag = <T>(item: T) => ({ ...item, nodeId });
    const snapshot = this.snapshot ?? {
      pods: new RowTable<PodSandbox>(samePodVersion),
      containers: new RowTable<Container>(sameContainerVersion),
      images: new RowTable<Image>(sameImageVersion),
    };
    const delta: ResourceDelta = {
      nodeId,
      reset: false,
      pods: snapshot.pods.replaceAll(pods.map(tag)),
      containers: snapshot.containers.replaceAll(containers.map(tag)),
      images:
        images === undefined
          ? { upserted: [], removed: [] }
          : snapshot.images.replaceAll(images.map(tag)),
      updatedAt: Date.now(),
    };
    if (first) {
      this.snapshot = snapshot;
      const reset = this.reset(snapshot);
      for (const sink of [...this.sinks]) sink.next(reset);
      return;
    }
    if (isEmpty(delta)) return;
    // What the list found is newer than what an event said of those rows.
    for (const row of delta.containers.upserted) this.statuses.forget(row.id);
    for (const id of delta.containers.removed) this.statuses.forget(id);
    if (this.mode === 'events') {
      // The events should have said so: a missed event, or a runtime that doesn't send
      // every kind. Sent all the same; said in the log for Diagnostics.
      watchLog.info(
        `Consistency check of ${this.options.name ?? nodeId}: ${describe(delta)} the events had not shown.`,
      );
    }
    for (const sink of [...this.sinks]) sink.next(delta);
  }

  private send(changes: ChangeSet): ResourceDelta | undefined {
    const delta = changes.delta();
    if (delta === undefined) return undefined;
    for (const sink of [...this.sinks]) sink.next(delta);
    return delta;
  }

  private reset(snapshot: Snapshot): ResourceDelta {
    return {
      nodeId: this.options.nodeId,
      reset: true,
      pods: { upserted: snapshot.pods.values(), removed: [] },
      containers: { upserted: snapshot.containers.values(), removed: [] },
      images: { upserted: snapshot.images.values(), removed: [] },
      updatedAt: Date.now(),
    };
  }
}

function rowCount(snapshot: Snapshot): number {
  return snapshot.pods.size + snapshot.containers.size + snapshot.images.size;
}

function isEmpty(delta: ResourceDelta): boolean {
  return [delta.pods, delta.containers, delta.images].every(
    (list) => list.upserted.length === 0 && list.removed.length === 0,
  );
}

/** "2 containers changed, 1 pod gone" */
function describe(delta: ResourceDelta): string {
  const parts: string[] = [];
  const count = (n: number, what: string, how: string): void => {
    if (n > 0) parts.push(`${n} ${what}${n === 1 ? '' : 's'} ${how}`);
  };
  for (const [what, list] of [
    ['pod', delta.pods],
    ['container', delta.containers],
    ['image', delta.images],
  ] as const) {
    count(list.upserted.length, what, 'new or changed');
    count(list.removed.length, what, 'gone');
  }
  return parts.join(', ');
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError({
    code: 'internal',
    message: 'Reading the node failed unexpectedly.',
    detail: error instanceof Error ? error.message : String(error),
  });
}
