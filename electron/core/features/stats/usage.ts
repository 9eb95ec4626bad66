/**
 * One sample's figures from the runtime's stats: CPU as a rate (CpuTracker), memory as the
 * runtime says it, and a pod without figures of its own as the sum of its containers.
 */
import type { ContainerStats, ContainerUsage, PodStats, PodUsage } from '../../../../shared/model';
import type { CpuTracker } from './cpu';

export function containerUsage(
  cpu: CpuTracker,
  key: string,
  stats: ContainerStats,
  podSandboxId: string | undefined,
): ContainerUsage {
  const cpuPercent = cpu.percent(key, stats.cpu);
  return {
    containerId: stats.containerId,
    name: stats.name,
    ...(podSandboxId !== undefined && { podSandboxId }),
    ...(cpuPercent !== undefined && { cpuPercent }),
    ...memoryOf(stats),
  };
}

export function podUsage(cpu: CpuTracker, key: string, stats: PodStats): PodUsage {
  const cpuPercent = cpu.percent(key, stats.cpu);
  return {
    podSandboxId: stats.podSandboxId,
    name: stats.name,
    namespace: stats.namespace,
    ...(cpuPercent !== undefined && { cpuPercent }),
    ...memoryOf(stats),
  };
}

/**
 * A pod the runtime reports no usage of its own for (CRI-O under cgroupfs fails to read the
 * pod's cgroup: "invalid slice name"): the sum of its containers' usage this sample, each
 * figure only once every container that has it does.
 */
export function summedPodUsage(stats: PodStats, containers: readonly ContainerUsage[]): PodUsage {
  const mine = containers.filter((usage) => usage.podSandboxId === stats.podSandboxId);
  const sum = (pick: (usage: ContainerUsage) => number | undefined): number | undefined => {
    const values = mine.map(pick);
    if (values.length === 0 || values.some((value) => value === undefined)) return undefined;
    return (values as number[]).reduce((total, value) => total + value, 0);
  };
  const cpuPercent = sum((usage) => usage.cpuPercent);
  const workingSet = sum((usage) => usage.memoryWorkingSetBytes);
  const usage = sum((usage) => usage.memoryUsageBytes);
  return {
    podSandboxId: stats.podSandboxId,
    name: stats.name,
    namespace: stats.namespace,
    ...(cpuPercent !== undefined && { cpuPercent }),
    ...(workingSet !== undefined && { memoryWorkingSetBytes: workingSet }),
    ...(usage !== undefined && { memoryUsageBytes: usage }),
    source: 'containers',
  };
}

function memoryOf(
  stats: ContainerStats | PodStats,
): Pick<ContainerUsage, 'memoryWorkingSetBytes' | 'memoryUsageBytes'> {
  const workingSet = stats.memory?.workingSetBytes;
  const usage = stats.memory?.usageBytes;
  return {
    ...(workingSet !== undefined && { memoryWorkingSetBytes: workingSet }),
    ...(usage !== undefined && { memoryUsageBytes: usage }),
  };
}
