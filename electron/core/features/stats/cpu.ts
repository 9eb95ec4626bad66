import type { CpuUsage } from '../../../../shared/model';

/**
 * Shortest interval between two readings that a rate is computed over. Readings closer
 * than this (a runtime serving a cached value, clock jitter) would divide a tiny or zero
 * usage delta by a tiny interval and produce absurd spikes.
 */
export const minRateIntervalMs = 200;

/** 1 core busy for the whole interval = 100 %. */
const nanosPerMilli = 1_000_000;

export type CpuRate =
  /** A rate: percent of one core. */
  | { readonly kind: 'rate'; readonly percent: number }
  /** No rate from this reading, but it is the baseline for the next one. */
  | { readonly kind: 'baseline' }
  /** Too close to the baseline to say anything: keep the old baseline. */
  | { readonly kind: 'too-soon' };

/**
 * The CPU use between two readings of the same container or pod, as percent of one core.
 *
 * - From `usageCoreNanoSeconds` deltas over the readings' own timestamps (the runtime's
 *   clock, not ours: a slow RPC doesn't inflate the rate).
 * - A counter that went backwards (the cgroup was recreated) gives no rate: the reading
 *   becomes the new baseline rather than a negative or huge value.
 * - Without a cumulative counter, the runtime's own average (`usageNanoCores`) is used.
 *   It is not used when the counter exists: containerd reports it as 0 until it has a
 *   window of its own, which would show a busy container as idle.
 */
export function cpuRate(previous: CpuUsage | undefined, current: CpuUsage): CpuRate {
  const usage = current.usageCoreNanoSeconds;
  if (usage === undefined) {
    return current.usageNanoCores === undefined
      ? { kind: 'baseline' }
      : { kind: 'rate', percent: current.usageNanoCores / 1e7 };
  }
  const before = previous?.usageCoreNanoSeconds;
  if (previous === undefined || before === undefined || usage < before) return { kind: 'baseline' };
  const elapsedMs = current.timestamp - previous.timestamp;
  if (elapsedMs < minRateIntervalMs)
    return elapsedMs < 0 ? { kind: 'baseline' } : { kind: 'too-soon' };
  return { kind: 'rate', percent: ((usage - before) / (elapsedMs * nanosPerMilli)) * 100 };
}

/**
 * The last reading of every container and pod a node reports, so each poll's reading
 * becomes a rate. Keys that stop appearing are forgotten (see `retain`), so memory follows
 * what the node runs now.
 */
export class CpuTracker {
  private readonly baselines = new Map<string, CpuUsage>();

  /** The rate since `key`'s previous reading; undefined on its first one. */
  percent(key: string, current: CpuUsage | undefined): number | undefined {
    if (current === undefined) {
      this.baselines.delete(key);
      return undefined;
    }
    const rate = cpuRate(this.baselines.get(key), current);
    if (rate.kind !== 'too-soon') this.baselines.set(key, current);
    return rate.kind === 'rate' ? rate.percent : undefined;
  }

  /** Forgets every key not in `keys` (containers and pods that are gone). */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.baselines.keys()) if (!keys.has(key)) this.baselines.delete(key);
  }

  get size(): number {
    return this.baselines.size;
  }
}
