/**
 * A tiny line chart for a table cell: the shape of a recent series (throughput, CPU),
 * not its values. Drawn as one SVG path so a table of hundreds stays cheap.
 */
export function Sparkline({
  values,
  width = 80,
  height = 18,
  max,
  label,
}: {
  /** Oldest first; missing samples as undefined leave a gap. */
  values: readonly (number | undefined)[];
  width?: number;
  height?: number;
  /** The top of the scale; the series' own maximum when absent. */
  max?: number;
  /** What the series is, for screen readers (e.g. "CPU, last minute"). */
  label: string;
}) {
  const path = sparklinePath(values, width, height, max);
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      {path !== '' && <path d={path} fill="none" stroke="currentColor" strokeWidth={1.2} />}
    </svg>
  );
}

/** The SVG path of a series scaled into width × height (1 px margin top and bottom). */
export function sparklinePath(
  values: readonly (number | undefined)[],
  width: number,
  height: number,
  max?: number,
): string {
  if (values.length === 0) return '';
  const top = max ?? Math.max(0, ...values.map((value) => value ?? 0));
  const scale = top > 0 ? (height - 2) / top : 0;
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  let path = '';
  let drawing = false;
  values.forEach((value, index) => {
    if (value === undefined || !Number.isFinite(value)) {
      drawing = false;
      return;
    }
    const x = (index * step).toFixed(1);
    const y = (height - 1 - Math.min(value, top) * scale).toFixed(1);
    path += `${drawing ? 'L' : 'M'}${x} ${y}`;
    drawing = true;
  });
  return path;
}
