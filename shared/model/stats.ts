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
