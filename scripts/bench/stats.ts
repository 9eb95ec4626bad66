/** Small statistics helpers for benches. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest-rank: the smallest value with at least p% of the samples at or below it.
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** MB/s with MB = 10^6 bytes. */
export function mbps(bytes: number, ms: number): number {
  return bytes / 1e6 / (ms / 1000);
}

export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/**
 * The bytes a readable delivers until it ends, counted as the app consumes its streams
 * (terminals and forwards take 'data' events). Async iteration would measure something
 * else: each `read()` concatenates everything buffered into one new Buffer, a copy the app
 * never makes (Readable's fromList was 7% of the exec bench's CPU profile).
 */
export function countBytes(readable: NodeJS.ReadableStream): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    readable.on('data', (chunk: Buffer) => (bytes += chunk.length));
    readable.once('error', reject);
    readable.once('end', () => resolve(bytes));
  });
}

/**
 * The process's RSS at the start and its peak since, sampled every 20 ms (a peak between
 * samples is missed; `stop` takes a last one). Stop it, or its timer keeps the bench alive.
 */
export function sampleRss(): { readonly start: number; readonly peak: number; stop(): void } {
  const start = process.memoryUsage.rss();
  let peak = start;
  const take = (): void => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(take, 20);
  return {
    start,
    get peak() {
      return peak;
    },
    stop: () => {
      clearInterval(timer);
      take();
    },
  };
}
