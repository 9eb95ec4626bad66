import {
  memo,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type CSSProperties,
} from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { LogLine } from '../../../../shared/model';
import { highlightPattern } from './highlight';
import { LineText } from './LineText';
import { sourceColourClass } from './source-colour';
import type { LogsController } from './logs-controller';
import { rootTextScale } from '../../ui/text-scale';

/**
 * Line height in pixels at the default text size. The list scales it with the user's text
 * size, in whole pixels, and sets --log-line-height to match, so the lines it places are as
 * tall as the ones it draws.
 */
export const lineHeight = 20;
/**
 * The tallest scroll area the list makes: under every engine's element-height limit
 * (Firefox's is about 17.9 million pixels). Past it, a pixel of scrolling moves more than
 * a pixel of lines.
 */
const maxScrollPixels = 15_000_000;
const overscan = 12;

/** Virtual scrolling with a cap on the scroll height; see maxScrollPixels. */
export function scrollGeometry(total: number, viewport: number, scrollTop: number, linePx: number) {
  const virtualHeight = total * linePx;
  const scrollHeight = Math.min(virtualHeight, maxScrollPixels);
  const ratio =
    virtualHeight > scrollHeight && scrollHeight > viewport
      ? (virtualHeight - viewport) / (scrollHeight - viewport)
      : 1;
  const virtualTop = scrollTop * ratio;
  const first = Math.max(0, Math.floor(virtualTop / linePx) - overscan);
  const end = Math.min(total, Math.ceil((virtualTop + viewport) / linePx) + overscan);
  return { scrollHeight, ratio, virtualTop, first, end };
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** Local time to the millisecond: `2024-05-01 14:00:00.123`. */
export function formatLineTime(time: number): string {
  const date = new Date(time);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** Whether `index` is among the sorted match indices. */
function contains(sorted: readonly number[] | undefined, index: number): boolean {
  if (sorted === undefined) return false;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? 0) < index) low = middle + 1;
    else high = middle;
  }
  return sorted[low] === index;
}

const Line = memo(function Line({
  line,
  index,
  top,
  timestamps,
  pattern,
  match,
  current,
  sources,
  fields,
}: {
  line: LogLine | undefined;
  index: number;
  top: number;
  timestamps: boolean;
  pattern: RegExp | undefined;
  match: boolean;
  current: boolean;
  /** A merged log's containers' names, for its container column. */
  sources: readonly string[];
  /** JSON and logfmt lines as fields rather than raw. */
  fields: boolean;
}) {
  if (line === undefined) {
    return <div className="log-line loading" role="listitem" style={{ top }} data-index={index} />;
  }
  const classes = ['log-line'];
  if (line.stream === 'stderr') classes.push('stderr');
  if (match) classes.push('match');
  if (current) classes.push('current');
  return (
    <div
      className={classes.join(' ')}
      role="listitem"
      style={{ top }}
      data-index={index}
      aria-current={current ? 'true' : undefined}
    >
      {timestamps && (
        <span className="log-time" title={line.timeText}>
          {line.timeText === '' ? '' : formatLineTime(line.time)}
        </span>
      )}
      {line.source !== undefined && (
        <span className={`log-source ${sourceColourClass(line.source)}`}>
          {sources[line.source] ?? ''}
        </span>
      )}
      <LineText text={line.text} fields={fields} pattern={match ? pattern : undefined} />
    </div>
  );
});

/**
 * The lines of the open log: only those on screen exist in the DOM, fetched from the
 * core in pages as the list scrolls. While `stick` is on, the newest line stays in view
 * as lines arrive; scrolling up turns it off, scrolling back to the end turns it on.
 */
/** Scrolled to the newest line (within a few pixels of rounding). */
function isAtEnd(element: HTMLElement): boolean {
  return element.scrollTop + element.clientHeight >= element.scrollHeight - 4;
}

export function LogList({ controller }: { controller: LogsController }) {
  const { total, cache, timestamps, stick, reveal, search, sources, fields } = useStore(
    controller.store,
    useShallow((state) => ({
      total: state.total,
      cache: state.cache,
      timestamps: state.timestamps,
      stick: state.stick,
      reveal: state.reveal,
      search: state.search,
      sources: state.sourceNames,
      fields: state.fields,
    })),
  );
  const version = useSyncExternalStore(
    (listener) => cache.subscribe(listener),
    () => cache.version,
  );
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  // Where the list was last put or seen scrolled: a scrollTop away from it that no scroll
  // event has reported yet is the user's.
  const lastTop = useRef(controller.scrollTop);
  const [scrollTop, setScrollTop] = useState(() => controller.scrollTop);
  const [viewport, setViewport] = useState(0);
  const [width, setWidth] = useState(0);
  const [linePx, setLinePx] = useState(lineHeight);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    // Back where it was when the view was left (unless sticking to the end).
    element.scrollTop = controller.scrollTop;
    lastTop.current = element.scrollTop;
    // The text size is read with the viewport: the list is laid out anew when either
    // changes (a text size change without a resize shows the next time the view is shown).
    const measure = (): void => {
      setViewport(element.clientHeight);
      setLinePx(Math.round(lineHeight * rootTextScale()));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [controller]);

  const geometry = scrollGeometry(total, viewport, scrollTop, linePx);
  controller.viewportTop = Math.floor(geometry.virtualTop / linePx);

  useEffect(() => {
    // Not measured yet, or not yet at the end it sticks to: nothing to fetch for.
    if (viewport === 0) return;
    cache.ensure(geometry.first, geometry.end);
  }, [cache, geometry.first, geometry.end, version, viewport]);

  // Keep the newest line in view while sticking.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element === null || !stick) return;
    // Scrolled up since, and its scroll event not handled yet (it comes with the next
    // frame, and a busy log renders sooner): the user is leaving the end, don't pull back.
    const moved = Math.abs(element.scrollTop - lastTop.current) > 1;
    const atEnd = isAtEnd(element);
    if (moved && !atEnd) {
      controller.setStick(false);
      return;
    }
    element.scrollTop = element.scrollHeight;
    lastTop.current = element.scrollTop;
    setScrollTop(element.scrollTop);
  }, [stick, total, viewport, controller, linePx]);

  // Bring a line into view (a search match), centred.
  const ratioRef = useRef(geometry.ratio);
  ratioRef.current = geometry.ratio;
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element === null || reveal === undefined || reveal.seq === controller.revealed) return;
    controller.revealed = reveal.seq;
    const target = reveal.index * linePx - (element.clientHeight - linePx) / 2;
    element.scrollTop = Math.max(0, target / ratioRef.current);
    lastTop.current = element.scrollTop;
    setScrollTop(element.scrollTop);
  }, [reveal, controller, linePx]);

  // A new log or view starts narrow again.
  useLayoutEffect(() => setWidth(0), [cache]);

  // Grow the scroll width to the widest line seen, so long lines scroll sideways.
  useLayoutEffect(() => {
    const element = content.current;
    if (element === null) return;
    let widest = 0;
    for (const child of element.children) widest = Math.max(widest, child.scrollWidth);
    if (widest > width) setWidth(widest);
  });

  const onScroll = (): void => {
    const element = scroller.current;
    if (element === null) return;
    setScrollTop(element.scrollTop);
    controller.scrollTop = lastTop.current = element.scrollTop;
    const atEnd = isAtEnd(element);
    if (atEnd !== controller.store.getState().stick) controller.setStick(atEnd);
  };

  const pattern = useMemo(
    () => (search.answered === undefined ? undefined : highlightPattern(search.answered)),
    [search.answered],
  );
  const matches = search.result?.lines;
  const currentLine = search.result?.lines[search.current];

  const rows = [];
  for (let index = geometry.first; index < geometry.end; index += 1) {
    const top = scrollTop + (index * linePx - geometry.virtualTop);
    rows.push(
      <Line
        key={index}
        line={cache.get(index)}
        index={index}
        top={top}
        timestamps={timestamps}
        pattern={pattern}
        match={contains(matches, index)}
        current={index === currentLine}
        sources={sources}
        fields={fields}
      />,
    );
  }

  return (
    <div
      ref={scroller}
      className="log-scroller"
      tabIndex={0}
      role="list"
      aria-label="Log lines"
      aria-busy={total > 0 && cache.get(geometry.first) === undefined}
      onScroll={onScroll}
      style={{ '--log-line-height': `${linePx}px` } as CSSProperties}
    >
      <div
        ref={content}
        className="log-content"
        style={{ height: geometry.scrollHeight, minWidth: width > 0 ? width : undefined }}
      >
        {rows}
      </div>
    </div>
  );
}
