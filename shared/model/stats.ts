import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';

/** Raw counters as the runtime reports them; rates (CPU %) are computed from deltas later. */
export interface CpuUsage {
  readonly timestamp: EpochMillis;
  /** Cumulative CPU time in nanoseconds (per core: 1 core for 1 s = 1e9). */
  readonly usageCoreNanoSeconds?: number;
  /** Average usage over the runtime's last sample window, in nano-cores. */
  readonly usageNanoCores?: number;
}

export interface MemoryUsage {
  readonly timestamp: EpochMillis;
  readonly workingSetBytes?: number;
  readonly usageBytes?: number;
  readonly rssBytes?: number;
  readonly availableBytes?: number;
  readonly pageFaults?: number;
  readonly majorPageFaults?: number;
}

export interface ContainerStats {
  readonly containerId: string;
  readonly name: string;
  readonly podSandboxId?: string;
  readonly cpu?: CpuUsage;
  readonly memory?: MemoryUsage;
  readonly writableLayerUsedBytes?: number;
}

export interface PodStats {
  readonly podSandboxId: string;
  readonly name: string;
  readonly namespace: string;
  readonly cpu?: CpuUsage;
  readonly memory?: MemoryUsage;
  readonly processCount?: number;
  readonly containers: readonly ContainerStats[];
}

/** A container's resource use at one moment, rates already computed from deltas. */
export interface ContainerUsage {
  readonly containerId: string;
  readonly name: string;
  readonly podSandboxId?: string;
  /** Percent of one CPU core (200 = two cores busy); absent on the first sample. */
  readonly cpuPercent?: number;
  readonly memoryWorkingSetBytes?: number;
  readonly memoryUsageBytes?: number;
}

export interface PodUsage {
  readonly podSandboxId: string;
  readonly name: string;
  readonly namespace: string;
  readonly cpuPercent?: number;
  readonly memoryWorkingSetBytes?: number;
  readonly memoryUsageBytes?: number;
  /**
   * `containers`: the runtime reported no usage for the pod itself (CRI-O under cgroupfs),
   * so these figures are the sum of its containers' (without the pod's own processes).
   * Absent: the runtime's own figures for the pod.
   */
  readonly source?: 'containers';
}

/** A ready pod whose own stats the runtime can't read, and why. */
export interface UnreadablePod {
  readonly podSandboxId: string;
  readonly name: string;
  readonly namespace: string;
  /** One sentence: why they can't be read. */
  readonly reason: string;
  /** The runtime's own words. */
  readonly detail: string;
}

/** One poll of a node's stats. */
export interface StatsSample {
  readonly at: EpochMillis;
  /** Containers with any usage reported (exited ones report none and are left out). */
  readonly containers: readonly ContainerUsage[];
  /** Empty when the runtime has no pod stats (see `podStatsSupported`). */
  readonly pods: readonly PodUsage[];
  /** ListPodSandboxStats answered UNIMPLEMENTED: this runtime has no pod stats at all. */
  readonly podStatsSupported: boolean;
  readonly containerStatsSupported: boolean;
  /**
   * Why pod stats are missing or partial although the runtime has them: containerd fails
   * ListPodSandboxStats as a whole when one ready pod has no cgroup of its own, and Porthole
   * then reads the pods one by one, leaving out those that fail.
   */
  readonly podStatsError?: AppErrorData;
  /** The ready pods the runtime can't read stats of (see `podStatsError`); absent if none. */
  readonly unreadablePods?: readonly UnreadablePod[];
  /**
   * Why the runtime was not asked for pod stats at all, though it has them (a version known
   * to crash on the call): every pod here is the sum of its containers.
   */
  readonly podStatsAvoided?: string;
}

/**
 * A stats subscription's payload: the recent history first (with `reset`), then each new
 * sample as it is taken.
 */
export interface StatsUpdate {
  /** True on a subscription's first payload: these samples replace whatever came before. */
  readonly reset: boolean;
  readonly samples: readonly StatsSample[];
  /** How often the node is polled, and how far back the history goes. */
  readonly intervalMs: number;
  readonly historyMs: number;
  /** The last poll failed (no sample); polling goes on, and the next success clears it. */
  readonly error?: AppErrorData;
}
