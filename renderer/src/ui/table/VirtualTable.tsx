import { useVirtualizer } from '@tanstack/react-virtual';
import { ColumnResizer, useColumnWidths, withWidths } from './column-widths';
import {
  memo,
  useCallback,
  useEffect,
  useId,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
} from 'react';
import { useKeepRendered } from '../keep-rendered';
import { rootTextScale } from '../text-scale';

export interface Column<Row> {
  readonly id: string;
  readonly header: string;
  /** The header is for assistive technology only (a checkbox or an actions column). */
  readonly headerHidden?: boolean;
  /** Minimum width in pixels (the whole width for a fixed column). */
  readonly width: number;
  /** Share of the spare width (a CSS `fr`); fixed width when absent. */
  readonly grow?: number;
  /**
   * Which columns give way when the table is too narrow (a detail pane is open, a small
   * window): lower numbers go first. Columns without a priority always stay.
   */
  readonly priority?: number;
  readonly sortable?: boolean;
  /** The user may drag its header's edge to set its width (kept per table). */
  readonly resizable?: boolean;
  readonly align?: 'end';
  readonly render: (row: Row) => ReactNode;
}

/**
 * The columns that fit in `width` pixels: the lowest-priority columns are dropped until
 * the minimum widths fit. Pure, so it is tested without a DOM.
 */
export function fittingColumns<C extends { readonly width: number; readonly priority?: number }>(
  columns: readonly C[],
  width: number,
): readonly C[] {
  let visible = [...columns];
  const total = (list: readonly C[]): number => list.reduce((sum, column) => sum + column.width, 0);
  const droppable = columns
    .filter((column) => column.priority !== undefined)
    .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  for (const column of droppable) {
    if (total(visible) <= width) break;
    visible = visible.filter((candidate) => candidate !== column);
  }
  return visible.length === columns.length ? columns : visible;
}

export function gridTemplate(
  columns: readonly { readonly width: number; readonly grow?: number }[],
): string {
  return columns
    .map((column) =>
      column.grow === undefined
        ? `${column.width}px`
        : `minmax(${column.width}px, ${column.grow}fr)`,
    )
    .join(' ');
}

export interface TableSort {
  readonly column: string;
  readonly direction: 'asc' | 'desc';
}

export interface VirtualTableHandle {
  focus(): void;
}

/**
 * Row height in pixels at the default text size (a 16 px root). A table scales it with the
 * root's font size and sets --row-height to match, so rows grow with the user's text size
 * (WCAG 1.4.4) and the virtualiser places them where the stylesheet draws them.
 */
export const rowHeight = 28;

interface RowProps<Row> {
  row: Row;
  rowId: string;
  index: number;
  start: number;
  selected: boolean;
  columns: readonly Column<Row>[];
  template: string;
  onSelect: (key: string) => void;
  onActivate: (key: string) => void;
  openOnClick: boolean;
}

function TableRowImpl<Row extends { readonly key: string }>({
  row,
  rowId,
  index,
  start,
  selected,
  columns,
  template,
  onSelect,
  onActivate,
  openOnClick,
}: RowProps<Row>) {
  return (
    <div
      id={rowId}
      className="table-row"
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-key={row.key}
      style={{ transform: `translateY(${start}px)`, gridTemplateColumns: template }}
      onMouseDown={(event) => {
        // A double click opens, it doesn't select a word of the cell.
        if (event.detail > 1) event.preventDefault();
        onSelect(row.key);
      }}
      onClick={(event) => {
        // Not when the click ended a drag that selected text to copy.
        if (openOnClick && event.button === 0 && (getSelection()?.isCollapsed ?? true)) {
          onActivate(row.key);
        }
      }}
      onDoubleClick={() => onActivate(row.key)}
    >
      {columns.map((column) => (
        <div
          key={column.id}
          role="gridcell"
          className={column.align === 'end' ? 'table-cell end' : 'table-cell'}
        >
          {column.render(row)}
        </div>
      ))}
    </div>
  );
}

// Rows whose data, position and selection are unchanged skip rendering: a live update
// that touches one container re-renders one row.
const TableRow = memo(TableRowImpl) as typeof TableRowImpl;

function sortArrow(sort: TableSort | undefined, column: string): string {
  if (sort?.column !== column) return '';
  return sort.direction === 'asc' ? '▲' : '▼';
}

export interface VirtualTableProps<Row extends { readonly key: string }> {
  readonly label: string;
  readonly rows: readonly Row[];
  readonly columns: readonly Column<Row>[];
  readonly selectedKey: string | undefined;
  readonly sort?: TableSort;
  readonly onSort?: (column: string) => void;
  readonly onSelect: (key: string) => void;
  readonly onActivate: (key: string) => void;
  /** A single click activates a row (opens its details), not only a double click or Enter. */
  readonly openOnClick?: boolean;
  /** Keys the table itself doesn't handle (the view's shortcuts). */
  readonly onKeyDown?: (event: KeyboardEvent) => void;
  readonly handle?: Ref<VirtualTableHandle>;
  /** Shown in place of the body when there are no rows. */
  readonly empty?: ReactNode;
}

/**
 * A dense, virtualised, sortable table (an ARIA grid). Only the visible rows exist in the
 * DOM, so 5,000 rows cost what 40 do. Selection is by row key, not index: rows that move
 * or appear under a live update never change what is selected.
 */
export function VirtualTable<Row extends { readonly key: string }>({
  label,
  rows,
  columns: allColumns,
  selectedKey,
  sort,
  onSort,
  onSelect,
  onActivate,
  openOnClick = false,
  onKeyDown,
  handle,
  empty,
}: VirtualTableProps<Row>) {
  const idPrefix = useId();
  const grid = useRef<HTMLDivElement>(null);
  const header = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState<number | undefined>();
  // The columns' widths are for the default text size (a 16 px root): a larger one (the
  // user's font setting) widens them alike, so headers and cells keep their room.
  const [textScale, setTextScale] = useState(1);
  const [headerHeight, setHeaderHeight] = useState(0);
  useLayoutEffect(() => {
    const element = grid.current;
    if (element === null) return;
    // Cell padding is inside the minimum widths; the grid's own scrollbar gutter is not
    // (clientWidth leaves it out).
    const measure = (): void => {
      setWidth(element.clientWidth);
      setHeaderHeight(header.current?.offsetHeight ?? 0);
      setTextScale(rootTextScale());
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const [widths, setColumnWidth] = useColumnWidths(label);
  const sized = useMemo(
    () =>
      withWidths(allColumns, widths).map((column) =>
        textScale === 1 ? column : { ...column, width: Math.round(column.width * textScale) },
      ),
    [allColumns, widths, textScale],
  );
  const shown = useMemo(
    () => (width === undefined ? sized : fittingColumns(sized, width)),
    [sized, width],
  );
  const columns = shown;
  // Whole pixels: the virtualiser's offsets and the rows' CSS height must agree exactly, or
  // rows drift apart (or overlap) by a fraction each.
  const rowPx = Math.round(rowHeight * textScale);
  const template = useMemo(() => gridTemplate(columns), [columns]);
  // What the columns that always stay need: in a window narrower than that (320 px) the
  // rows scroll sideways inside the table, and the header with them, rather than clip.
  const minWidth = useMemo(() => columns.reduce((sum, column) => sum + column.width, 0), [columns]);

  const selectedIndex = useMemo(
    () => (selectedKey === undefined ? -1 : rows.findIndex((row) => row.key === selectedKey)),
    [rows, selectedKey],
  );
  // The selected row stays rendered when scrolled out of view (a wheel, a larger text
  // size), so the grid's aria-activedescendant never names a row that isn't there.
  const rangeExtractor = useKeepRendered(selectedIndex);
  // The grid scrolls, not a box inside it: the element that takes the focus is the one
  // that scrolls, so the arrow keys reach a sideways overflow and the rows are never a
  // scrollable region a keyboard can't enter (axe's scrollable-region-focusable found the
  // body scrolling on its own once a node had more pods than the pane had room). The
  // header sticks to the top; the rows start below it and scroll into view below it.
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => grid.current,
    scrollMargin: headerHeight,
    scrollPaddingStart: headerHeight,
    estimateSize: () => rowPx,
    // A few rows beyond the edges: enough for smooth wheel scrolling, few enough that a
    // filter keystroke re-renders little more than what is visible.
    overscan: 4,
    rangeExtractor,
  });

  // The row height is an estimate the virtualiser caches per row: a new text size re-lays
  // out every row.
  useLayoutEffect(() => virtualizer.measure(), [rowPx, virtualizer]);

  // Follow the selection when it moves (keys, clicks, navigation) but not when rows
  // change underneath it: a live update must not yank the scroll position.
  const selectedIndexRef = useRef(selectedIndex);
  selectedIndexRef.current = selectedIndex;
  useEffect(() => {
    if (selectedIndexRef.current >= 0) {
      virtualizer.scrollToIndex(selectedIndexRef.current, { align: 'auto' });
    }
  }, [selectedKey, virtualizer]);

  useImperativeHandle(handle, () => ({ focus: () => grid.current?.focus() }), []);

  const moveTo = useCallback(
    (index: number) => {
      const clamped = Math.max(0, Math.min(rows.length - 1, index));
      const row = rows[clamped];
      if (row === undefined) return;
      // A key that leaves the selection where it is (End on the last row) still brings it
      // into view: the window may have shrunk, or the user scrolled away, since it moved.
      if (row.key === selectedKey) virtualizer.scrollToIndex(clamped, { align: 'auto' });
      else onSelect(row.key);
    },
    [rows, onSelect, selectedKey, virtualizer],
  );

  // Read on demand: measuring during render would force a layout on every update.
  const pageRows = (): number =>
    Math.max(1, Math.floor(((grid.current?.clientHeight ?? 400) - headerHeight) / rowPx) - 1);

  const handleKeyDown = (event: KeyboardEvent): void => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    // A control in a cell (a button, a link, a checkbox) keeps its own keys: Enter and
    // Space press it, they don't open or toggle the row.
    if (event.target !== event.currentTarget && (event.key === 'Enter' || event.key === ' '))
      return;
    const current = selectedIndex;
    switch (event.key) {
      case 'ArrowDown':
        moveTo(current + 1);
        break;
      case 'ArrowUp':
        moveTo(current < 0 ? 0 : current - 1);
        break;
      case 'PageDown':
        moveTo(current + pageRows());
        break;
      case 'PageUp':
        moveTo(current - pageRows());
        break;
      case 'Home':
        moveTo(0);
        break;
      case 'End':
        moveTo(rows.length - 1);
        break;
      case 'Enter':
        if (selectedKey !== undefined) onActivate(selectedKey);
        break;
      default:
        onKeyDown?.(event);
        return;
    }
    event.preventDefault();
  };

  const rowId = (key: string): string => `${idPrefix}-row-${encodeURIComponent(key)}`;
  const activeDescendant =
    selectedKey !== undefined && selectedIndex >= 0 ? rowId(selectedKey) : undefined;

  return (
    <div
      ref={grid}
      className="table"
      role="grid"
      aria-label={label}
      aria-rowcount={(rows.length === 0 && empty !== undefined ? 1 : rows.length) + 1}
      aria-colcount={columns.length}
      aria-activedescendant={activeDescendant}
      tabIndex={0}
      data-focus-home
      onKeyDown={handleKeyDown}
      style={
        { '--table-min-width': `${minWidth}px`, '--row-height': `${rowPx}px` } as CSSProperties
      }
    >
      <div
        ref={header}
        className="table-header"
        role="row"
        aria-rowindex={1}
        style={{ gridTemplateColumns: template }}
      >
        {columns.map((column) => {
          const sorted = sort?.column === column.id;
          const sortable = column.sortable === true && onSort !== undefined;
          // aria-sort only where sorting is possible: "none" says "sortable, not sorted".
          const ariaSort = !sortable
            ? undefined
            : sorted
              ? sort.direction === 'asc'
                ? 'ascending'
                : 'descending'
              : 'none';
          const className = column.align === 'end' ? 'table-header-cell end' : 'table-header-cell';
          return (
            <div key={column.id} role="columnheader" aria-sort={ariaSort} className={className}>
              {sortable ? (
                <button
                  type="button"
                  className="table-sort"
                  title={`Sort by ${column.header}`}
                  onClick={() => onSort(column.id)}
                >
                  {column.header}
                  <span className="sort-arrow" aria-hidden>
                    {sortArrow(sort, column.id)}
                  </span>
                </button>
              ) : column.headerHidden === true ? (
                <span className="visually-hidden">{column.header}</span>
              ) : (
                column.header
              )}
              {column.resizable === true && (
                <ColumnResizer
                  header={column.header}
                  width={column.width}
                  onResize={(next) =>
                    // Kept at the default text size's scale, as the column defines it.
                    setColumnWidth(
                      column.id,
                      next === undefined ? undefined : Math.round(next / textScale),
                    )
                  }
                />
              )}
            </div>
          );
        })}
      </div>
      {/* The body stays mounted when the rows run out (a filter matching nothing), so
          the next keystroke that brings rows back doesn't rebuild it. */}
      <div className="table-body" role="rowgroup">
        {rows.length === 0 && empty !== undefined ? (
          // A row of one cell across the columns: a grid's rowgroup may hold only rows, and
          // the empty state's own role (status) is allowed in a cell.
          <div role="row" aria-rowindex={2}>
            <div role="gridcell" aria-colspan={columns.length} className="table-empty">
              {empty}
            </div>
          </div>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              if (row === undefined) return null;
              // Keyed by position, not by row: when the rows change (a keystroke in the
              // filter) the DOM rows stay and get new content instead of being rebuilt.
              return (
                <TableRow
                  key={item.index}
                  row={row}
                  rowId={rowId(row.key)}
                  index={item.index}
                  start={item.start - headerHeight}
                  selected={row.key === selectedKey}
                  columns={columns}
                  template={template}
                  onSelect={onSelect}
                  onActivate={onActivate}
                  openOnClick={openOnClick}
                />
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
