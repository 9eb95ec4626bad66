import { formatBytes } from '../../ui/format';

/**
 * CPU as percent of one core, with the digits that matter at each size: "0.04%", "3.2%",
 * "48%", "198%" (two busy cores).
 */
export function formatCpu(percent: number | undefined): string {
  if (percent === undefined || !Number.isFinite(percent)) return '—';
  const value = Math.max(0, percent);
  const digits = value === 0 ? 0 : value < 1 ? 2 : value < 10 ? 1 : 0;
  return `${value.toFixed(digits)}%`;
}

export function formatMemory(bytes: number | undefined): string {
  return bytes === undefined ? '—' : formatBytes(bytes);
}

/** Axis labels for CPU: "0%", "2.5%", "40%" (no padding zeros). */
export function formatCpuTick(percent: number): string {
  return `${Number(percent.toFixed(2))}%`;
}

/** Steps between memory axis ticks: powers of two of B, KiB, MiB and GiB. */
export const memoryIncrs: readonly number[] = [0, 10, 20, 30].flatMap((shift) =>
  [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((step) => step * 2 ** shift),
);

export { formatClock } from '../../ui/format';
