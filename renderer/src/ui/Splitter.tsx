import { useRef, useState } from 'react';

/**
 * The widest the pane may be in the split the handle sits in: `max`, less what the table
 * keeps beside it (`--table-keep`, which the sheet also caps the pane with), never under
 * `min`.
 */
function widest(handle: HTMLElement, min: number, max: number): number {
  const split = handle.parentElement;
  if (split === null) return max;
  const keep = Number.parseFloat(getComputedStyle(split).getPropertyValue('--table-keep'));
  if (!Number.isFinite(keep)) return max;
  return Math.max(min, Math.min(max, split.clientWidth - keep));
}

/**
 * The handle between a table and the detail pane on its right. Drag it, or focus it and
 * use the arrow keys; the pane's width is the value (the pane grows to the left), kept
 * within what leaves the table its minimum.
 */
export function Splitter({
  width,
  min,
  max,
  onResize,
  label,
}: {
  width: number;
  min: number;
  max: number;
  onResize: (width: number) => void;
  label: string;
}) {
  const start = useRef<{ x: number; width: number; limit: number } | undefined>(undefined);
  const [dragging, setDragging] = useState(false);
  return (
    <div
      className={dragging ? 'splitter dragging' : 'splitter'}
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={width}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onPointerDown={(event) => {
        event.preventDefault();
        event.currentTarget.setPointerCapture(event.pointerId);
        const limit = widest(event.currentTarget, min, max);
        start.current = { x: event.clientX, width: Math.min(width, limit), limit };
        setDragging(true);
      }}
      onPointerMove={(event) => {
        if (start.current === undefined) return;
        const next = start.current.width + (start.current.x - event.clientX);
        onResize(Math.min(start.current.limit, next));
      }}
      onPointerUp={(event) => {
        event.currentTarget.releasePointerCapture(event.pointerId);
        start.current = undefined;
        setDragging(false);
      }}
      onKeyDown={(event) => {
        const step = event.shiftKey ? 64 : 16;
        const limit = widest(event.currentTarget, min, max);
        const from = Math.min(width, limit);
        if (event.key === 'ArrowLeft') onResize(Math.min(limit, from + step));
        else if (event.key === 'ArrowRight') onResize(from - step);
        else if (event.key === 'Home') onResize(limit);
        else if (event.key === 'End') onResize(min);
        else return;
        event.preventDefault();
      }}
    />
  );
}
