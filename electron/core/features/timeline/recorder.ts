/**
 * The flight recorder: every connected node's container and pod lifecycle events, from the
 * nodes feature's resource deltas (one ResourceWatcher per node, shared with the views: it
 * follows GetContainerEvents where the runtime has them and diffs its lists otherwise), so
 * no node is watched twice. A transition is recorded once however it was seen (NodeTracker);
 * a start or an exit is timed, and an exit explained (code, reason), by ContainerStatus.
 *
 * Bounded: `maxEvents` are kept in memory, the oldest of the nodes holding the most going
 * first (BoundedTimeline), and the file keeps the newest that fit under its cap. The file is
 * written a moment after a change (batched), and on dispose.
 */
import type { EventSink } from '../../../../shared/contract';
import { toAppErrorData } from '../../../../shared/errors';
import { DisposableStore, toDisposable, type Disposable } from '../../../../shared/lifecycle';
import {
  BoundedTimeline,
  timelineLimits,
  type ContainerDetail,
  type ContainerOutcome,
  type NodeStatus,
  type NodesDelta,
  type ResourceDelta,
  type TimelineEvent,
  type TimelineUpdate,
} from '../../../../shared/model';
import { logger } from '../../base/log';
import { TaskQueue } from '../../base/tasks';
import { TimelineFile } from './file';
import { NodeTracker, type Transition } from './tracker';

const timelineLog = logger('timeline');

/** What the recorder needs from the node manager. */
export interface TimelineNodes {
  statuses(): readonly NodeStatus[];
  onDidChange(listener: (delta: NodesDelta) => void): Disposable;
  /** Throws an AppError for a node that is not connected. */
  watchResources(nodeId: string, sink: EventSink<ResourceDelta>): Disposable;
  client(nodeId: string): {
    containerStatus(containerId: string): Promise<ContainerDetail>;
  };
  /** A container's status as a runtime event carried it lately, or undefined. */
  recentStatus(nodeId: string, containerId: string): ContainerOutcome | undefined;
}

export interface TimelineRecorderOptions {
  readonly nodes: TimelineNodes;
  readonly configDir: string;
  readonly maxEvents?: number;
  readonly maxFileBytes?: number;
  /** How long after a change the file is written (changes meanwhile go with it). */
  readonly saveDelayMs?: number;
  readonly now?: () => number;
}

interface NodeEntry {
  readonly tracker: NodeTracker;
  /** Resolves once a reset of the node (its state when followed) has been taken in. */
  watched: Promise<void>;
  markWatched: () => void;
  subscription: Disposable | undefined;
  /** Deltas are turned into events one after another, in the order they came. */
  chain: Promise<void>;
  updates: 'events' | 'polling';
}

export class TimelineRecorder implements Disposable {
  /** Resolves once the history is loaded: nodes are followed from then on. */
  readonly ready: Promise<void>;
  private readonly kept: BoundedTimeline;
  private seq = 0;
  private readonly sinks = new Set<EventSink<TimelineUpdate>>();
  private readonly nodeEntries = new Map<string, NodeEntry>();
  private readonly store = new DisposableStore();
  /** ContainerStatus reads, a few at a time across the fleet. */
  private readonly statusReads = new TaskQueue(4);
  private readonly file: TimelineFile;
  private readonly saveDelayMs: number;
  private readonly now: () => number;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> | undefined;
  private saveAgain = false;
  private loaded = false;
  private disposed = false;

  constructor(private readonly options: TimelineRecorderOptions) {
    this.kept = new BoundedTimeline(options.maxEvents ?? timelineLimits.maxEvents);
    this.saveDelayMs = options.saveDelayMs ?? 2000;
    this.now = options.now ?? Date.now;
    this.file = new TimelineFile(
      options.configDir,
      options.maxFileBytes ?? timelineLimits.maxFileBytes,
    );
    this.store.add(options.nodes.onDidChange((delta) => this.onNodes(delta)));
    this.ready = this.load();
  }

  /** Every event kept, then each new batch (see TimelineUpdate). */
  subscribe(sink: EventSink<TimelineUpdate>): Disposable {
    this.sinks.add(sink);
    if (this.loaded) this.sendAll(sink);
    return toDisposable(() => this.sinks.delete(sink));
  }

  /** The events kept, oldest first. */
  list(): readonly TimelineEvent[] {
    return this.kept.events;
  }

  /** Resolves once every delta received so far is recorded. */
  async settled(): Promise<void> {
    await this.ready;
    await Promise.all([...this.nodeEntries.values()].map((entry) => entry.chain));
  }

  /**
   * Resolves once the node is followed: its state when followed is taken in, and what
   * changes from then on is recorded (for tests and benches, which change a node then).
   */
  async watching(nodeId: string): Promise<void> {
    await this.ready;
    await this.entryFor(nodeId).watched;
  }

  /** Forgets every event, in memory and in the file. */
  async clear(): Promise<void> {
    await this.ready;
    this.kept.reset([]);
    for (const sink of [...this.sinks]) sink.next({ reset: true, events: [] });
    await this.saveNow();
  }

  /** Writes the file now (after any write under way). */
  async saveNow(): Promise<void> {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.saving !== undefined) {
      this.saveAgain = true;
      await this.saving;
      if (this.saving !== undefined) await this.saving;
      return;
    }
    this.saving = (async () => {
      try {
        do {
          this.saveAgain = false;
          await this.file.save(this.kept.events);
        } while (this.saveAgain);
      } finally {
        this.saving = undefined;
      }
    })();
    await this.saving;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.store.dispose();
    for (const entry of this.nodeEntries.values()) entry.subscription?.dispose();
    this.nodeEntries.clear();
    this.sinks.clear();
    // What is still unsaved is on disk before dispose returns: the process may exit next,
    // and whoever disposed the core may remove its config directory.
    if (this.saveTimer !== undefined) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
      try {
        this.file.saveSync(this.kept.events);
      } catch (error) {
        timelineLog.warn('The timeline could not be saved.', error);
      }
    }
  }

  // ---- nodes --------------------------------------------------------------------------

  private async load(): Promise<void> {
    const { events, warnings } = await this.file.load();
    for (const warning of warnings) timelineLog.warn(warning);
    if (this.disposed) return;
    this.kept.reset(events);
    this.seq = this.kept.events.reduce((max, event) => Math.max(max, event.seq), 0);
    this.loaded = true;
    for (const sink of [...this.sinks]) this.sendAll(sink);
    for (const status of this.options.nodes.statuses()) this.follow(status);
  }

  private onNodes(delta: NodesDelta): void {
    if (!this.loaded || this.disposed) return;
    for (const status of delta.upserted) this.follow(status);
    for (const nodeId of delta.removed) this.unfollow(nodeId);
  }

  /** A connected node is followed; a reconnecting one keeps its subscription. */
  private follow(status: NodeStatus): void {
    const entry = this.entryFor(status.nodeId);
    // Unknown yet: the watcher tries the event stream, and a runtime without says so.
    entry.updates = status.updates ?? 'events';
    if (status.state === 'connected') {
      if (entry.subscription === undefined) this.subscribeNode(status.nodeId, entry);
    } else if (status.state !== 'reconnecting') {
      entry.subscription?.dispose();
      entry.subscription = undefined;
    }
  }

  private unfollow(nodeId: string): void {
    this.nodeEntries.get(nodeId)?.subscription?.dispose();
    // The tracker stays: a node discovered again is diffed against what it had.
    const entry = this.nodeEntries.get(nodeId);
    if (entry !== undefined) entry.subscription = undefined;
  }

  private entryFor(nodeId: string): NodeEntry {
    let entry = this.nodeEntries.get(nodeId);
    if (entry === undefined) {
      const tracker = new NodeTracker();
      tracker.seed(this.kept.events.filter((event) => event.nodeId === nodeId));
      let markWatched = (): void => undefined;
      const watched = new Promise<void>((resolve) => (markWatched = resolve));
      entry = {
        tracker,
        watched,
        markWatched,
        subscription: undefined,
        chain: Promise.resolve(),
        updates: 'polling',
      };
      this.nodeEntries.set(nodeId, entry);
    }
    return entry;
  }

  private subscribeNode(nodeId: string, entry: NodeEntry): void {
    try {
      const subscription = this.options.nodes.watchResources(nodeId, {
        next: (delta) => {
          entry.chain = entry.chain.then(() => this.record(nodeId, entry, delta));
        },
        error: () => {
          // Disconnected: followed again once it is connected (see follow).
          if (entry.subscription === subscription) entry.subscription = undefined;
        },
      });
      entry.subscription = subscription;
    } catch (error) {
      timelineLog.debug(`Not following ${nodeId}: ${toAppErrorData(error).message}`);
    }
  }

  // ---- recording ----------------------------------------------------------------------

  private async record(nodeId: string, entry: NodeEntry, delta: ResourceDelta): Promise<void> {
    const transitions = entry.tracker.apply(delta);
    if (delta.reset) entry.markWatched();
    if (transitions.length === 0 || this.disposed) return;
    const source = entry.updates;
    const details = new Map<string, Promise<ContainerOutcome | undefined>>();
    const detail = (containerId: string, kind: 'started' | 'exited') => {
      // The event that made the change said how it ran: asked only when it did not (polls).
      const told = this.options.nodes.recentStatus(nodeId, containerId);
      if (
        told !== undefined &&
        (kind === 'started' ? told.state !== 'created' : told.state === 'exited')
      ) {
        return Promise.resolve(told);
      }
      let read = details.get(containerId);
      if (read === undefined) {
        read = this.statusReads
          .run(() => this.options.nodes.client(nodeId).containerStatus(containerId))
          .catch(() => undefined);
        details.set(containerId, read);
      }
      return read;
    };
    const made = await Promise.all(
      transitions.map((transition) => this.toEvent(nodeId, source, transition, detail)),
    );
    const events = made.filter((event): event is TimelineEvent => event !== undefined);
    if (events.length === 0 || this.disposed) return;
    this.append(events);
  }

  private async toEvent(
    nodeId: string,
    source: 'events' | 'polling',
    transition: Transition,
    detail: (
      containerId: string,
      kind: 'started' | 'exited',
    ) => Promise<ContainerOutcome | undefined>,
  ): Promise<TimelineEvent | undefined> {
    const { container, ...rest } = transition;
    const base = {
      seq: 0,
      nodeId,
      seenAt: this.now(),
      source,
      ...rest,
      ...(container !== undefined && {
        containerId: container.id,
        containerName: container.name,
        attempt: container.attempt,
      }),
    };
    if (container === undefined) return base;
    if (transition.kind === 'started') {
      const status = await detail(container.id, 'started');
      // Seen first exited, and the runtime says it never ran: no start to record.
      if (status !== undefined && status.startedAt === undefined) return undefined;
      return { ...base, time: status?.startedAt ?? base.time };
    }
    if (transition.kind === 'exited') {
      const status = await detail(container.id, 'exited');
      if (status === undefined) return base;
      return {
        ...base,
        time: status.finishedAt ?? base.time,
        ...(status.exitCode !== undefined && { exitCode: status.exitCode }),
        reason: exitReason(status),
        ...(status.message !== '' && { message: status.message.slice(0, 4096) }),
      };
    }
    return base;
  }

  private append(events: TimelineEvent[]): void {
    const numbered = events.map((event) => ({ ...event, seq: (this.seq += 1) }));
    this.kept.add(numbered);
    const update: TimelineUpdate = { reset: false, events: numbered };
    for (const sink of [...this.sinks]) sink.next(update);
    this.scheduleSave();
  }

  private sendAll(sink: EventSink<TimelineUpdate>): void {
    const { resetChunk } = timelineLimits;
    if (this.kept.events.length === 0) sink.next({ reset: true, events: [] });
    for (let start = 0; start < this.kept.events.length; start += resetChunk) {
      sink.next({ reset: start === 0, events: this.kept.events.slice(start, start + resetChunk) });
    }
  }

  private scheduleSave(): void {
    if (this.saveTimer !== undefined || this.disposed) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.saveNow().catch(timelineLog.failure('The timeline could not be saved'));
    }, this.saveDelayMs);
  }
}

/** The runtime's reason, or the kubelet's words for an exit it leaves unexplained. */
function exitReason(status: ContainerOutcome): string {
  if (status.reason !== '') return status.reason;
  if (status.exitCode === undefined) return '';
  return status.exitCode === 0 ? 'Completed' : 'Error';
}
