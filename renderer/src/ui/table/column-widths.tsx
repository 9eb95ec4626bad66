import { useCallback, useRef, useState } from 'react';

/** Narrower than this, a column shows nothing worth reading. */
export const minColumnWidth = 48;
const maxColumnWidth = 800;

function storageKey(table: string): string {
  return `porthole.columns.${table}`;
}

function load(table: string): Readonly<Record<string, number>> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(table)) ?? '{}');
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter(
        (entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0,
      ),
    );
  } catch {
    return {}; // no storage (a sandboxed window), or something unreadable in it
  }
}

function save(table: string, widths: Readonly<Record<string, number>>): void {
  try {
    localStorage.setItem(storageKey(table), JSON.stringify(widths));
  } catch {
    // Full or disabled storage: the widths still hold for this window.
  }
}

/**
 * The widths the user gave a table's columns, kept in the browser's storage per table;
 * `undefined` for a width resets that column to its default.
 */
export function useColumnWidths(
  table: string,
): [Readonly<Record<string, number>>, (column: string, width: number | undefined) => void] {
  const [widths, setWidths] = useState(() => load(table));
  const set = useCallback(
    (column: string, width: number | undefined) =>
      setWidths((current) => {
        const { [column]: _old, ...rest } = current;
        const next =
          width === undefined
            ? rest
            : {
                ...rest,
                [column]: Math.round(Math.min(maxColumnWidth, Math.max(minColumnWidth, width))),
              };
        save(table, next);
        return next;
      }),
    [table],
  );
  return [widths, set];
}

/** Columns with the user's widths: a resized column has that width, fixed. */
export function withWidths<
  C extends { readonly id: string; readonly width: number; readonly grow?: number },
>(columns: readonly C[], widths: Readonly<Record<string, number>>): readonly C[] {
  if (!columns.some((column) => widths[column.id] !== undefined)) return columns;
  return columns.map((column) => {
    const width = widths[column.id];
    if (width === undefined) return column;
    const { grow: _grow, ...fixed } = column;
    return { ...fixed, width } as C;
  });
}

/**
 * The handle on a header cell's right edge: drag it, or focus it and use the arrow keys;
 * a double click gives the column its default width back.
 */
export function ColumnResizer({
  header,
  width,
  onResize,
}: {
  header: string;
  /** The column's width as set (its minimum when grown by spare space). */
  width: number;
  onResize: (width: number | undefined) => void;
}) {
  const start = useRef<{ x: number; width: number } | undefined>(undefined);
  const [dragging, setDragging] = useState(false);
  const cellWidth = (handle: Element): number =>
    handle.parentElement?.getBoundingClientRect().width ?? minColumnWidth;
  return (
    <div
      className={dragging ? 'column-resizer dragging' : 'column-resizer'}
      role="separator"
      aria-orientation="vertical"
      aria-label={`Resize the ${header} column`}
      aria-valuenow={Math.round(width)}
      aria-valuemin={minColumnWidth}
      aria-valuetext={`${Math.round(width)} pixels`}
      title={`Drag to resize the ${header} column; double-click for its default width`}
      tabIndex={0}
      onPointerDown={(event) => {
        event.preventDefault();
        event.stopPropagation();
        event.currentTarget.setPointerCapture(event.pointerId);
        start.current = { x: event.clientX, width: cellWidth(event.currentTarget) };
        setDragging(true);
      }}
      onPointerMove={(event) => {
        if (start.current === undefined) return;
        onResize(start.current.width + (event.clientX - start.current.x));
      }}
      onPointerUp={(event) => {
        event.currentTarget.releasePointerCapture(event.pointerId);
        start.current = undefined;
        setDragging(false);
      }}
      onDoubleClick={() => onResize(undefined)}
      onKeyDown={(event) => {
        const step = event.shiftKey ? 64 : 16;
        const width = cellWidth(event.currentTarget);
        if (event.key === 'ArrowLeft') onResize(width - step);
        else if (event.key === 'ArrowRight') onResize(width + step);
        else return;
        event.preventDefault();
        event.stopPropagation();
      }}
    />
  );
}
