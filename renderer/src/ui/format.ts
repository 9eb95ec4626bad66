/** Compact ages as tables show them: "45s", "12m", "3h", "5d". */
export function formatAge(sinceMillis: number, nowMillis: number): string {
  const seconds = Math.max(0, Math.floor((nowMillis - sinceMillis) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** Binary sizes with three significant digits: "512 B", "1.50 KiB", "23.4 MiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${value} B`;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${byteUnits[unit]}`;
}

const integerFormat = new Intl.NumberFormat('en-US');

/** "5,000": one shared formatter (creating one per call is slow in every engine). */
export function formatCount(value: number): string {
  return integerFormat.format(value);
}

/** "1 pod", "2 pods", "1,200 pod sandboxes": a count with its noun in the right number. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/**
 * "13:43:10": a time within the last minutes or hours (a chart's axis, when a node went
 * down), where the day and AM/PM are noise.
 */
const clockFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export function formatClock(epochMillis: number): string {
  return clockFormat.format(epochMillis);
}
