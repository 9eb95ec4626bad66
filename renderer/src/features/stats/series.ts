/**
 * Samples as charts and tables need them: per-container (or per-pod) series, a short ring
 * for table sparklines, and the default choice of what to chart. Pure, so it is tested
 * without a DOM.
 */
import type { ContainerUsage, PodUsage, StatsSample } from '../../../../shared/model';

export type StatsKind = 'containers' | 'pods';

export type Usage = ContainerUsage | PodUsage;

export function usageId(usage: Usage): string {
  return 'containerId' in usage ? usage.containerId : usage.podSandboxId;
}

const indexes = new WeakMap<
  StatsSample,
  { containers: Map<string, Usage>; pods: Map<string, Usage> }
>();

/** A sample's entries by id (built once per sample: charts look up every id in every sample). */
export function usageById(sample: StatsSample, kind: StatsKind): ReadonlyMap<string, Usage> {
  let index = indexes.get(sample);
  if (index === undefined) {
    index = {
      containers: new Map(sample.containers.map((usage) => [usage.containerId, usage])),
      pods: new Map(sample.pods.map((usage) => [usage.podSandboxId, usage])),
    };
    indexes.set(sample, index);
  }
  return index[kind];
}

/** Samples appended to a history, bounded to the last `historyMs` and `maxCount` samples. */
export function appendSamples(
  history: readonly StatsSample[],
  added: readonly StatsSample[],
  historyMs: number,
  maxCount: number,
): readonly StatsSample[] {
  if (added.length === 0) return history;
  const all = [...history, ...added];
  const newest = all[all.length - 1]?.at ?? 0;
  let start = Math.max(0, all.length - maxCount);
  while (start < all.length && (all[start]?.at ?? 0) < newest - historyMs) start += 1;
  return start === 0 ? all : all.slice(start);
}

/** The recent values of one container or pod, oldest first; gaps are undefined. */
export interface SparkSeries {
  readonly cpu: readonly (number | undefined)[];
  readonly memory: readonly (number | undefined)[];
  /** A pod's latest figures are the sum of its containers' (see PodUsage.source). */
  readonly summed?: boolean;
}

export interface SparkIndex {
  readonly containers: ReadonlyMap<string, SparkSeries>;
  readonly pods: ReadonlyMap<string, SparkSeries>;
}

export const emptySparkIndex: SparkIndex = { containers: new Map(), pods: new Map() };

/**
 * Every container's and pod's series over the last `length` samples, for table cells: a
 * row finds its series with one lookup instead of scanning the samples.
 */
export function sparkIndex(samples: readonly StatsSample[], length: number): SparkIndex {
  const recent = samples.slice(-length);
  const build = (kind: StatsKind): Map<string, SparkSeries> => {
    const series = new Map<
      string,
      { cpu: (number | undefined)[]; memory: (number | undefined)[]; summed?: boolean }
    >();
    recent.forEach((sample, index) => {
      const entries: readonly Usage[] = kind === 'containers' ? sample.containers : sample.pods;
      for (const usage of entries) {
        const id = usageId(usage);
        let entry = series.get(id);
        if (entry === undefined) {
          entry = {
            cpu: new Array<number | undefined>(recent.length).fill(undefined),
            memory: new Array<number | undefined>(recent.length).fill(undefined),
          };
          series.set(id, entry);
        }
        entry.cpu[index] = usage.cpuPercent;
        entry.memory[index] = usage.memoryWorkingSetBytes;
        if ('source' in usage) entry.summed = usage.source === 'containers';
      }
    });
    return series;
  };
  return { containers: build('containers'), pods: build('pods') };
}

/** The last value that is not a gap. */
export function latestValue(
  values: readonly (number | undefined)[] | undefined,
): number | undefined {
  if (values === undefined) return undefined;
  for (let index = values.length - 1; index >= 0; index -= 1) {
    const value = values[index];
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The ids present in the latest sample, busiest first (CPU, then memory): the default chart. */
export function topIds(
  samples: readonly StatsSample[],
  kind: StatsKind,
  count: number,
): readonly string[] {
  const latest = samples[samples.length - 1];
  if (latest === undefined) return [];
  const entries: readonly Usage[] = kind === 'containers' ? latest.containers : latest.pods;
  return [...entries]
    .sort(
      (a, b) =>
        (b.cpuPercent ?? -1) - (a.cpuPercent ?? -1) ||
        (b.memoryWorkingSetBytes ?? 0) - (a.memoryWorkingSetBytes ?? 0) ||
        usageId(a).localeCompare(usageId(b)),
    )
    .slice(0, count)
    .map(usageId);
}

/** Every id seen in the samples, with its latest entry (what the legend lists). */
export function knownUsages(
  samples: readonly StatsSample[],
  kind: StatsKind,
): ReadonlyMap<string, Usage> {
  const known = new Map<string, Usage>();
  for (const sample of samples) {
    for (const [id, usage] of usageById(sample, kind)) known.set(id, usage);
  }
  return known;
}

/** uPlot's aligned data: x in seconds, then one array per series; null is a gap. */
export type ChartColumns = [xs: number[], ...series: (number | null)[][]];

export function chartColumns(
  samples: readonly StatsSample[],
  kind: StatsKind,
  ids: readonly string[],
  metric: 'cpu' | 'memory',
): ChartColumns {
  const xs = samples.map((sample) => sample.at / 1000);
  const series = ids.map((id) =>
    samples.map((sample) => {
      const usage = usageById(sample, kind).get(id);
      const value = metric === 'cpu' ? usage?.cpuPercent : usage?.memoryWorkingSetBytes;
      return value ?? null;
    }),
  );
  return [xs, ...series];
}
