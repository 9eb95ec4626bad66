import type { EventSink } from '../../../../shared/contract';
import { AppError, toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type {
  ContainerStats,
  ContainerUsage,
  PodStats,
  PodUsage,
  StatsSample,
  StatsUpdate,
  UnreadablePod,
} from '../../../../shared/model';
import type { CallOptions, CriClient } from '../../base/cri';
import { CpuTracker } from './cpu';
import { SampleHistory } from './history';
import { containerUsage, podUsage, summedPodUsage } from './usage';

/** What the poller needs from a node's client (`podStats` serves `readPodsOneByOne`). */
export type StatsClient = Pick<
  CriClient,
  | 'listContainerStats'
  | 'listPodStats'
  | 'podStats'
  | 'listPods'
  | 'listContainers'
  | 'podStatsHazard'
>;

export interface StatsTimings {
  /** Time between the starts of two polls. */
  readonly intervalMs: number;
  /** How far back the history goes (what a chart opened later starts with). */
  readonly historyMs: number;
  /** Deadline of each stats call. */
  readonly callTimeoutMs: number;
  /** While pods are read one by one, how often ListPodSandboxStats is tried again. */
  readonly listRetryMs: number;
}

export const defaultStatsTimings: StatsTimings = {
  intervalMs: 2000,
  historyMs: 5 * 60_000,
  callTimeoutMs: 8000,
  listRetryMs: 30_000,
};

/** Pod stats calls run this many at a time in the one-by-one fallback. */
const podStatsConcurrency = 4;

/** Failures that say nothing about the pods: try again next time. */
const transientCodes: ReadonlySet<string> = new Set([
  'unavailable',
  'deadline-exceeded',
  'cancelled',
  'connection-lost',
]);

/**
 * A container or pod went away while the runtime read it (containerd: "task … not found"
 * during ListPodSandboxStats): a race with its lifecycle, over by the next poll.
 */
const raceCode = 'not-found';

export interface StatsPollerOptions {
  readonly client: StatsClient;
  readonly timings?: Partial<StatsTimings>;
  readonly now?: () => number;
}

interface PodsRead {
  readonly pods: readonly PodStats[];
  readonly error?: AppErrorData;
  readonly unreadable?: readonly UnreadablePod[];
}

/** containerd's words for a pod without a cgroup of its own ("cgroupPath is empty"). */
const noCgroupPattern = /cgroup ?path is empty|cgroup.*(not found|does not exist)/i;

/**
 * Polls one node's container and pod stats for any number of subscribers, from the first
 * `subscribe` until the last subscription is disposed (or `fail`/`dispose`). Each poll
 * turns the runtime's counters into rates (CpuTracker) and goes to every subscriber and
 * into a bounded history that a new subscriber gets first.
 */
export class StatsPoller implements Disposable {
  readonly timings: StatsTimings;
  private readonly now: () => number;
  private readonly sinks = new Set<EventSink<StatsUpdate>>();
  private readonly history: SampleHistory;
  private readonly cpu = new CpuTracker();
  /** Which pod each container belongs to (ListContainerStats doesn't say). */
  private readonly podOfContainer = new Map<string, string>();
  /** Pods whose stats failed for a reason of their own (no cgroup), by id. */
  private readonly unreadablePods = new Map<
    string,
    { name: string; namespace: string; error: AppErrorData }
  >();
  private containerStatsSupported = true;
  private podStatsSupported = true;
  /**
   * Why this runtime is not asked for pod stats at all (CriClient.podStatsHazard), as of
   * the last poll: its pods are then the sums of their containers. Asked each poll, as the
   * runtime may come back from a restart as another version (the client keeps what its
   * Version said until then, so this costs no call).
   */
  private podStatsAvoided: string | undefined;
  /** While set, ListPodSandboxStats failed and pods are read one by one until then. */
  private listPodsRetryAt: number | undefined;
  private lastError: AppErrorData | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private polling: AbortController | undefined;
  private disposed = false;

  constructor(private readonly options: StatsPollerOptions) {
    this.timings = { ...defaultStatsTimings, ...options.timings };
    this.now = options.now ?? Date.now;
    // Room for every interval of the history, plus slack for polls that ran early.
    const maxCount = Math.ceil(this.timings.historyMs / Math.max(1, this.timings.intervalMs)) + 10;
    this.history = new SampleHistory(this.timings.historyMs, maxCount);
  }

  get subscriberCount(): number {
    return this.sinks.size;
  }

  get isPolling(): boolean {
    return this.timer !== undefined || this.polling !== undefined;
  }

  /** Sends the history at once; the first subscriber starts the polling. */
  subscribe(sink: EventSink<StatsUpdate>): Disposable {
    if (this.disposed) throw new AppError({ code: 'cancelled', message: 'Stats polling ended.' });
    this.sinks.add(sink);
    sink.next(this.update(true, this.history.list()));
    if (this.sinks.size === 1 && !this.isPolling) void this.poll();
    return toDisposable(() => {
      this.sinks.delete(sink);
      if (this.sinks.size === 0) this.stop();
    });
  }

  /** Ends every subscription with `error` and stops polling (the node went away). */
  fail(error: AppError): void {
    const sinks = [...this.sinks];
    this.sinks.clear();
    this.stop();
    for (const sink of sinks) sink.error(error);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.sinks.clear();
    this.stop();
  }

  private stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.polling?.abort();
    this.polling = undefined;
  }

  private update(reset: boolean, samples: readonly StatsSample[]): StatsUpdate {
    return {
      reset,
      samples,
      intervalMs: this.timings.intervalMs,
      historyMs: this.timings.historyMs,
      ...(this.lastError !== undefined && { error: this.lastError }),
    };
  }

  private send(update: StatsUpdate): void {
    for (const sink of [...this.sinks]) sink.next(update);
  }

  private async poll(): Promise<void> {
    const controller = new AbortController();
    this.polling = controller;
    this.timer = undefined;
    const started = this.now();
    let sample: StatsSample | undefined;
    try {
      sample = await this.takeSample(controller.signal);
      this.lastError = undefined;
    } catch (error) {
      if (controller.signal.aborted) return;
      this.lastError = toAppErrorData(error);
    }
    if (controller.signal.aborted || this.disposed) return;
    this.polling = undefined;
    if (sample !== undefined) this.history.add(sample);
    this.send(this.update(false, sample === undefined ? [] : [sample]));
    if (this.sinks.size === 0) return;
    const wait = Math.max(0, started + this.timings.intervalMs - this.now());
    this.timer = setTimeout(() => void this.poll(), wait);
  }

  // ---- one sample -----------------------------------------------------------------

  private callOptions(signal: AbortSignal): CallOptions {
    return { timeoutMs: this.timings.callTimeoutMs, signal };
  }

  private async takeSample(signal: AbortSignal): Promise<StatsSample> {
    const [containers, pods] = await Promise.all([
      this.readContainers(signal),
      this.readPods(signal),
    ]);
    const at = this.now();
    // Without container stats, the containers inside the pod stats stand in for them.
    const containerStats = this.containerStatsSupported
      ? containers
      : pods.pods.flatMap((pod) => pod.containers);
    for (const pod of pods.pods) {
      for (const container of pod.containers) {
        this.podOfContainer.set(container.containerId, pod.podSandboxId);
      }
    }
    await this.learnPodsOf(containerStats, signal);

    const seen = new Set<string>();
    const containerFigures: ContainerUsage[] = [];
    for (const stats of containerStats) {
      // Exited containers are listed with no usage at all: nothing to chart.
      if (stats.cpu === undefined && stats.memory === undefined) continue;
      const key = `container:${stats.containerId}`;
      seen.add(key);
      const podSandboxId = stats.podSandboxId ?? this.podOfContainer.get(stats.containerId);
      containerFigures.push(containerUsage(this.cpu, key, stats, podSandboxId));
    }
    const podFigures: PodUsage[] = [];
    for (const stats of pods.pods) {
      const key = `pod:${stats.podSandboxId}`;
      seen.add(key);
      podFigures.push(
        stats.cpu === undefined && stats.memory === undefined
          ? summedPodUsage(stats, containerFigures)
          : podUsage(this.cpu, key, stats),
      );
    }
    this.cpu.retain(seen);
    for (const containerId of this.podOfContainer.keys()) {
      if (!seen.has(`container:${containerId}`)) this.podOfContainer.delete(containerId);
    }
    return {
      at,
      containers: containerFigures,
      pods: podFigures,
      podStatsSupported: this.podStatsSupported,
      containerStatsSupported: this.containerStatsSupported,
      ...(this.podStatsAvoided !== undefined && { podStatsAvoided: this.podStatsAvoided }),
      ...(pods.error !== undefined && { podStatsError: pods.error }),
      ...(pods.unreadable !== undefined && { unreadablePods: pods.unreadable }),
    };
  }

  /** Fills the container → pod map for containers it doesn't know yet (one list call). */
  private async learnPodsOf(stats: readonly ContainerStats[], signal: AbortSignal): Promise<void> {
    const unknown = stats.some(
      (entry) =>
        entry.podSandboxId === undefined &&
        (entry.cpu !== undefined || entry.memory !== undefined) &&
        !this.podOfContainer.has(entry.containerId),
    );
    if (!unknown) return;
    try {
      const containers = await this.options.client.listContainers({}, this.callOptions(signal));
      for (const container of containers) {
        this.podOfContainer.set(container.id, container.podSandboxId);
      }
    } catch {
      // The pod is a nicety: the stats are still right without it. Tried again next poll.
    }
  }

  private async readContainers(signal: AbortSignal): Promise<readonly ContainerStats[]> {
    if (!this.containerStatsSupported) return [];
    try {
      return await this.options.client.listContainerStats({}, this.callOptions(signal));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'unimplemented') throw error;
      this.containerStatsSupported = false;
      return [];
    }
  }

  /**
   * ListPodSandboxStats, where it works. containerd fails it as a whole when one ready pod
   * has no cgroup of its own (no cgroup parent in its config); the pods are then read one
   * by one, the list is tried again now and then, and the pods that can't be read are
   * named in `error`. It also fails as a whole when a container goes away while it reads
   * (NOT_FOUND): the pods are read one by one for that poll only. UNIMPLEMENTED means the
   * runtime has no pod stats: asked no more.
   */
  private async readPods(signal: AbortSignal): Promise<PodsRead> {
    if (!this.podStatsSupported) return { pods: [] };
    const { client } = this.options;
    try {
      this.podStatsAvoided = await client.podStatsHazard(this.callOptions(signal));
    } catch (error) {
      // Not known (the Version call failed): no pod stats call this poll.
      return { pods: [], error: podStatsFailed(asAppError(error)) };
    }
    if (this.podStatsAvoided !== undefined) return this.readPodsWithoutStats(signal);
    if (this.listPodsRetryAt === undefined || this.now() >= this.listPodsRetryAt) {
      try {
        const pods = await client.listPodStats({}, this.callOptions(signal));
        this.listPodsRetryAt = undefined;
        this.unreadablePods.clear();
        return { pods };
      } catch (error) {
        const appError = asAppError(error);
        if (appError.code === 'unimplemented') {
          this.podStatsSupported = false;
          return { pods: [] };
        }
        if (transientCodes.has(appError.code)) {
          return { pods: [], error: podStatsFailed(appError) };
        }
        if (appError.code !== raceCode) {
          this.listPodsRetryAt = this.now() + this.timings.listRetryMs;
        }
      }
    }
    return this.readPodsOneByOne(signal);
  }

  /** The ready pods with no usage of their own: each becomes the sum of its containers. */
  private async readPodsWithoutStats(signal: AbortSignal): Promise<PodsRead> {
    try {
      const ready = await this.options.client.listPods(
        { state: 'ready' },
        this.callOptions(signal),
      );
      return {
        pods: ready.map((pod) => ({
          podSandboxId: pod.id,
          name: pod.name,
          namespace: pod.namespace,
          containers: [],
        })),
      };
    } catch (error) {
      return { pods: [], error: podStatsFailed(asAppError(error)) };
    }
  }

  private async readPodsOneByOne(signal: AbortSignal): Promise<PodsRead> {
    const { client } = this.options;
    let ready;
    try {
      ready = await client.listPods({ state: 'ready' }, this.callOptions(signal));
    } catch (error) {
      return { pods: [], error: podStatsFailed(asAppError(error)) };
    }
    const readyIds = new Set(ready.map((pod) => pod.id));
    for (const id of this.unreadablePods.keys()) {
      if (!readyIds.has(id)) this.unreadablePods.delete(id);
    }
    const wanted = ready.filter((pod) => !this.unreadablePods.has(pod.id));
    const pods: PodStats[] = [];
    const transient: AppError[] = [];
    await forEachLimited(wanted, podStatsConcurrency, async (pod) => {
      try {
        pods.push(await client.podStats(pod.id, this.callOptions(signal)));
      } catch (error) {
        const appError = asAppError(error);
        // The pod went away since it was listed: nothing to say about it.
        if (appError.code === raceCode) return;
        if (transientCodes.has(appError.code)) transient.push(appError);
        else {
          this.unreadablePods.set(pod.id, {
            name: pod.name,
            namespace: pod.namespace,
            error: toAppErrorData(appError),
          });
        }
      }
    });
    if (signal.aborted) throw new AppError({ code: 'cancelled', message: 'Stats polling ended.' });
    const firstTransient = transient[0];
    const error =
      this.unreadableError() ??
      (firstTransient === undefined ? undefined : podStatsFailed(firstTransient));
    const unreadable = [...this.unreadablePods].map(([podSandboxId, pod]): UnreadablePod => ({
      podSandboxId,
      name: pod.name,
      namespace: pod.namespace,
      reason: noCgroupPattern.test(pod.error.message)
        ? 'It has no cgroup of its own: it was started without a cgroup parent.'
        : pod.error.message,
      detail: pod.error.message,
    }));
    return {
      pods,
      ...(error !== undefined && { error }),
      ...(unreadable.length > 0 && { unreadable }),
    };
  }

  private unreadableError(): AppErrorData | undefined {
    const unreadable = [...this.unreadablePods.values()];
    const first = unreadable[0];
    if (first === undefined) return undefined;
    const names = unreadable.map((pod) => pod.name).slice(0, 3);
    const more =
      unreadable.length > names.length ? ` and ${unreadable.length - names.length} more` : '';
    return {
      code: 'failed-precondition',
      message:
        unreadable.length === 1
          ? `The stats of pod ${first.name} can't be read.`
          : `The stats of ${unreadable.length} pods can't be read (${names.join(', ')}${more}).`,
      // The runtime's own words are the message (the detail is only the gRPC status).
      detail: first.error.message,
      hint: "The runtime reads a pod's stats from the pod's own cgroup; a pod started without a cgroup parent has none. Its containers' stats are under Containers.",
    };
  }
}

function asAppError(error: unknown): AppError {
  return error instanceof AppError ? error : new AppError(toAppErrorData(error));
}

function podStatsFailed(error: AppError): AppErrorData {
  return {
    code: error.code,
    message: `Pod stats could not be read: ${error.message.replace(/\.$/, '')}.`,
    ...(error.detail !== undefined && { detail: error.detail }),
    ...(error.hint !== undefined && { hint: error.hint }),
  };
}

/** Runs `task` over `items`, at most `limit` at a time. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
