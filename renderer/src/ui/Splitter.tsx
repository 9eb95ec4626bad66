import { useRef, useState } from 'react';

/**
 * The handle between a table and the detail pane on its right. Drag it, or focus it and
 * use the arrow keys; the pane's width is the value (the pane grows to the left).
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
  const start = useRef<{ x: number; width: number } | undefined>(undefined);
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
        start.current = { x: event.clientX, width };
        setDragging(true);
      }}
      onPointerMove={(event) => {
        if (start.current === undefined) return;
        onResize(start.current.width + (start.current.x - event.clientX));
      }}
      onPointerUp={(event) => {
        event.currentTarget.releasePointerCapture(event.pointerId);
        start.current = undefined;
        setDragging(false);
      }}
      onKeyDown={(event) => {
        const step = event.shiftKey ? 64 : 16;
        if (event.key === 'ArrowLeft') onResize(width + step);
        else if (event.key === 'ArrowRight') onResize(width - step);
        else if (event.key === 'Home') onResize(max);
        else if (event.key === 'End') onResize(min);
        else return;
        event.preventDefault();
      }}
    />
  );
}
