import { useEffect, useLayoutEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartTheme } from './chart-theme';
import { formatClock } from './format';
import type { ChartColumns } from './series';

export interface ChartSeries {
  readonly id: string;
  readonly label: string;
  readonly color: string;
}

export interface TimeChartProps {
  /** What the chart shows, e.g. "CPU": its accessible name and caption. */
  readonly title: string;
  /** The id of the table that gives the chart's figures as text (its legend). */
  readonly describedBy?: string;
  /** x (seconds) first, then one column per entry of `series`, in the same order. */
  readonly columns: ChartColumns;
  readonly series: readonly ChartSeries[];
  /** Axis labels: "50%", "12 MiB". */
  readonly format: (value: number) => string;
  /** The y scale never goes below this top (so 0.1 % doesn't look like a full chart). */
  readonly minTop: number;
  /** Steps the y axis may use between ticks (binary ones for bytes); uPlot's own otherwise. */
  readonly yIncrs?: readonly number[];
  readonly theme: ChartTheme;
  /** Charts with the same key share the cursor (hover one, both show the time). */
  readonly syncKey: string;
  /** The sample index under the cursor, or undefined when it left. */
  readonly onHover: (index: number | undefined) => void;
}

const minHeight = 120;
const font = '11px system-ui, -apple-system, "Segoe UI", sans-serif';

/** The x axis spans at least this much, so the first samples start at the right edge. */
const minSpanSeconds = 60;
/** Seconds between x ticks: whole seconds and round minutes only. */
const timeIncrs = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/**
 * A live time series chart drawn by uPlot on a canvas. The chart is rebuilt when the set
 * of series or the theme changes; new samples only replace its data. It fills its box
 * and follows the box's size (window resizes, the splitter).
 */
export function TimeChart({
  title,
  columns,
  series,
  format,
  minTop,
  yIncrs,
  theme,
  syncKey,
  onHover,
  describedBy,
}: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  // The latest props for uPlot's callbacks, which live as long as the chart.
  const latest = useRef({ columns, format, onHover });
  latest.current = { columns, format, onHover };
  const seriesKey = series
    .map((entry) => `${entry.id}\u0000${entry.label}\u0000${entry.color}`)
    .join('\u0001');

  useLayoutEffect(() => {
    const element = box.current;
    if (element === null) return undefined;
    let hovered: number | undefined;
    const axis = (extra: uPlot.Axis): uPlot.Axis => ({
      stroke: theme.text,
      font,
      grid: { stroke: theme.grid, width: 1 },
      ticks: { stroke: theme.grid, width: 1, size: 4 },
      ...extra,
    });
    const options: uPlot.Options = {
      width: Math.max(1, element.clientWidth),
      height: Math.max(minHeight, element.clientHeight),
      legend: { show: false },
      // Room on the right for the last time label, which is centred on the edge.
      padding: [8, 28, 0, 0],
      cursor: {
        sync: { key: syncKey },
        // A time cursor only: a value line across would read as a threshold.
        y: false,
        drag: { x: false, y: false },
        points: { size: 6 },
      },
      scales: {
        x: {
          time: true,
          range: (_u, min, max) => [Math.min(min, max - minSpanSeconds), max],
        },
        y: {
          range: (_u, _min, max) => [0, Math.max(minTop, Number.isFinite(max) ? max * 1.1 : 0)],
        },
      },
      axes: [
        axis({
          incrs: timeIncrs,
          space: 70,
          values: (_u, splits) => splits.map((seconds) => formatClock(seconds * 1000)),
        }),
        axis({
          size: 64,
          ...(yIncrs !== undefined && { incrs: [...yIncrs] }),
          values: (_u, splits) => splits.map((value) => latest.current.format(value)),
        }),
      ],
      series: [
        {},
        ...series.map((entry): uPlot.Series => ({
          label: entry.label,
          stroke: entry.color,
          width: 1.5,
          spanGaps: false,
          points: { show: false },
        })),
      ],
      hooks: {
        setCursor: [
          (u) => {
            const index = u.cursor.idx ?? undefined;
            if (index === hovered) return;
            hovered = index;
            latest.current.onHover(index);
          },
        ],
      },
    };
    const instance = new uPlot(options, latest.current.columns, element);
    chart.current = instance;
    const resize = new ResizeObserver(() => {
      instance.setSize({
        width: Math.max(1, element.clientWidth),
        height: Math.max(minHeight, element.clientHeight),
      });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      instance.destroy();
      chart.current = null;
      if (hovered !== undefined) latest.current.onHover(undefined);
    };
    // `series` is keyed by `seriesKey` (a new array with the same series keeps the chart);
    // data, format and onHover reach uPlot through `latest`.
  }, [seriesKey, theme, minTop, yIncrs, syncKey]);

  useEffect(() => {
    chart.current?.setData(columns);
  }, [columns]);

  return (
    <figure className="stats-chart" aria-label={title} aria-describedby={describedBy}>
      <figcaption className="stats-chart-title">
        {title}
        {describedBy !== undefined && (
          <span className="visually-hidden">: the figures are in the table beside it</span>
        )}
      </figcaption>
      <div
        ref={box}
        className="stats-chart-canvas"
        data-points={columns[0].length}
        aria-hidden="true"
      />
    </figure>
  );
}
