import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { Container, Image, OnNode, PodSandbox, ResourceDelta } from '../../../../shared/model';
import type { CriClient } from '../../base/cri';
import { byId, diffById } from './diff';

/** What the watcher needs from a node's client. */
export type WatchedClient = Pick<
  CriClient,
  'listPods' | 'listContainers' | 'listImages' | 'watchContainerEvents'
>;

export interface WatcherTimings {
  /** Polling interval when the runtime has no event stream. */
  readonly pollIntervalMs: number;
  /**
   * Safety poll while events flow: images have no events at all, and a missed event
   * must not leave a row stale forever.
   */
  readonly safetyPollMs: number;
  /** Events come in bursts (create, start…): one refresh per burst. */
  readonly debounceMs: number;
  /** After the event stream fails, poll fast and try the stream again this much later. */
  readonly eventsRetryMs: number;
}

export const defaultWatcherTimings: WatcherTimings = {
  pollIntervalMs: 2000,
  safetyPollMs: 15_000,
  debounceMs: 100,
  eventsRetryMs: 10_000,
};

export interface ResourceWatcherOptions {
  readonly nodeId: string;
  readonly client: WatchedClient;
  /** Use GetContainerEvents (the runtime supports it) instead of polling. */
  readonly useEvents: boolean;
  readonly timings?: Partial<WatcherTimings>;
  /** Hears each refresh's outcome: undefined when the runtime answered. */
  readonly onHealth?: (error: AppError | undefined) => void;
  /**
   * Hears that the event stream is unsupported after all, or switched off on the node (it
   * ended at once, with OK and no events): the watcher then polls, and stops trying it.
   */
  readonly onEventsUnsupported?: () => void;
}

interface Snapshot {
  readonly pods: Map<string, OnNode<PodSandbox>>;
  readonly containers: Map<string, OnNode<Container>>;
  readonly images: Map<string, OnNode<Image>>;
  readonly updatedAt: number;
}

/**
 * Keeps one node's pods, containers and images fresh for any number of subscribers.
 * Runtime events (GetContainerEvents) trigger refreshes where supported, with a slow
 * safety poll; elsewhere it polls. Each refresh lists everything and sends only what
 * changed; a new subscriber first gets the whole current state with `reset: true`.
 */
export class ResourceWatcher implements Disposable {
  private readonly timings: WatcherTimings;
  private readonly sinks = new Set<EventSink<ResourceDelta>>();
  private snapshot: Snapshot | undefined;
  private useEvents: boolean;
  private events: Disposable | undefined;
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private debounceTimer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshing = false;
  private dirty = false;
  private disposed = false;
  /** Moves on each resume: a refresh begun before it must not become the new snapshot. */
  private generation = 0;
  /** The runtime is down: no polling, no event stream, no refreshes until resume(). */
  private suspended = false;
  private readonly refreshed = new Set<() => void>();

  constructor(private readonly options: ResourceWatcherOptions) {
    this.timings = { ...defaultWatcherTimings, ...options.timings };
    this.useEvents = options.useEvents;
    if (this.useEvents) this.startEvents();
    else this.poll(this.timings.pollIntervalMs);
    this.refresh();
  }

  get mode(): 'events' | 'polling' {
    return this.events !== undefined ? 'events' : 'polling';
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
    this.events?.dispose();
    this.events = undefined;
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
    this.events?.dispose();
    this.events = undefined;
    this.clearTimers();
    this.snapshot = undefined;
    this.generation += 1;
    this.useEvents = useEvents;
    if (useEvents) this.startEvents();
    else this.poll(this.timings.pollIntervalMs);
    this.refresh();
  }

  /** Asks for a refresh now (e.g. after Porthole itself changed something). */
  refresh(): void {
    if (this.disposed || this.suspended) return;
    if (this.refreshing) {
      this.dirty = true;
      return;
    }
    void this.runRefreshes();
  }

  /** Resolves after the next refresh completes (for callers that just changed something). */
  refreshNow(): Promise<void> {
    if (this.disposed || this.suspended) return Promise.resolve();
    return new Promise((resolve) => {
      this.refreshed.add(resolve);
      this.refresh();
    });
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
    this.events?.dispose();
    this.events = undefined;
    this.clearTimers();
    this.sinks.clear();
    for (const resolve of this.refreshed) resolve();
    this.refreshed.clear();
  }

  // ---- triggers -------------------------------------------------------------------

  private startEvents(): void {
    let received = false;
    this.events = this.options.client.watchContainerEvents({
      next: () => {
        received = true;
        this.scheduleRefresh();
      },
      error: (error) => this.onEventsEnded(error, received),
      complete: () => this.onEventsEnded(undefined, received),
    });
    this.poll(this.timings.safetyPollMs);
  }

  private onEventsEnded(error: AppError | undefined, received: boolean): void {
    this.events = undefined;
    if (this.disposed || this.suspended) return;
    this.poll(this.timings.pollIntervalMs);
    // Events may have been lost while the stream was down.
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
      if (!this.disposed && !this.suspended && this.useEvents) this.startEvents();
    }, this.timings.eventsRetryMs);
  }

  private poll(intervalMs: number): void {
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    this.pollTimer = setInterval(() => this.refresh(), intervalMs);
  }

  private scheduleRefresh(): void {
    if (this.debounceTimer !== undefined || this.disposed) return;
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      this.refresh();
    }, this.timings.debounceMs);
  }

  private clearTimers(): void {
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.pollTimer = this.debounceTimer = this.retryTimer = undefined;
  }

  // ---- refresh --------------------------------------------------------------------

  private async runRefreshes(): Promise<void> {
    this.refreshing = true;
    try {
      do {
        this.dirty = false;
        const waiting = [...this.refreshed];
        this.refreshed.clear();
        await this.refreshOnce();
        for (const resolve of waiting) resolve();
      } while (this.dirty && !this.disposed);
    } finally {
      this.refreshing = false;
    }
  }

  private async refreshOnce(): Promise<void> {
    const { client, nodeId } = this.options;
    const generation = this.generation;
    let lists: [PodSandbox[], Container[], Image[]];
    try {
      lists = await Promise.all([client.listPods(), client.listContainers(), client.listImages()]);
    } catch (error) {
      if (!this.disposed && !this.suspended) this.options.onHealth?.(toAppError(error));
      return;
    }
    // Read before a suspend (or a resume that wants a fresh reset): out of date.
    if (this.disposed || this.suspended || this.generation !== generation) return;
    this.options.onHealth?.(undefined);
    const tag = <T>(item: T): OnNode<T> => ({ ...item, nodeId });
    const pods = lists[0].map(tag);
    const containers = lists[1].map(tag);
    const images = lists[2].map(tag);
    const next: Snapshot = {
      pods: byId(pods),
      containers: byId(containers),
      images: byId(images),
      updatedAt: Date.now(),
    };
    const previous = this.snapshot;
    this.snapshot = next;
    if (previous === undefined) {
      const reset = this.reset(next);
      for (const sink of [...this.sinks]) sink.next(reset);
      return;
    }
    const delta: ResourceDelta = {
      nodeId,
      reset: false,
      pods: diffById(previous.pods, pods),
      containers: diffById(previous.containers, containers),
      images: diffById(previous.images, images),
      updatedAt: next.updatedAt,
    };
    const empty = [delta.pods, delta.containers, delta.images].every(
      (list) => list.upserted.length === 0 && list.removed.length === 0,
    );
    if (empty) return;
    for (const sink of [...this.sinks]) sink.next(delta);
  }

  private reset(snapshot: Snapshot): ResourceDelta {
    return {
      nodeId: this.options.nodeId,
      reset: true,
      pods: { upserted: [...snapshot.pods.values()], removed: [] },
      containers: { upserted: [...snapshot.containers.values()], removed: [] },
      images: { upserted: [...snapshot.images.values()], removed: [] },
      updatedAt: snapshot.updatedAt,
    };
  }
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError({
    code: 'internal',
    message: 'Reading the node failed unexpectedly.',
    detail: error instanceof Error ? error.message : String(error),
  });
}
