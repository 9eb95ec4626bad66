import { Fragment, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { LayoutNode, SplitNode } from './layout';
import { PlayerPane } from './PlayerPane';
import type { TerminalTab } from './store';
import { TerminalPaneView } from './TerminalPaneView';
import { useTerminals, useTerminalsFeature } from './use-terminals';

const minShare = 0.05;

/** Moves the boundary between child `index - 1` and child `index` of a split. */
function moved(sizes: readonly number[], index: number, delta: number): number[] {
  const before = sizes[index - 1] ?? 0;
  const after = sizes[index] ?? 0;
  const shift = Math.max(minShare - before, Math.min(after - minShare, delta));
  return sizes.map((size, at) =>
    at === index - 1 ? before + shift : at === index ? after - shift : size,
  );
}

function Gutter({ tab, split, index }: { tab: TerminalTab; split: SplitNode; index: number }) {
  const feature = useTerminalsFeature();
  const drag = useRef<{ start: number; length: number; sizes: readonly number[] } | undefined>(
    undefined,
  );
  const [dragging, setDragging] = useState(false);
  const horizontal = split.direction === 'right';
  const resize = (sizes: readonly number[]): void => feature.resizeSplit(tab.id, split.id, sizes);

  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    const container = event.currentTarget.parentElement;
    if (container === null) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    const box = container.getBoundingClientRect();
    drag.current = {
      start: horizontal ? event.clientX : event.clientY,
      length: horizontal ? box.width : box.height,
      sizes: split.sizes,
    };
    setDragging(true);
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>): void => {
    const state = drag.current;
    if (state === undefined || state.length <= 0) return;
    const delta = ((horizontal ? event.clientX : event.clientY) - state.start) / state.length;
    resize(moved(state.sizes, index, delta));
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>): void => {
    if (event.currentTarget.hasPointerCapture(event.pointerId)) {
      event.currentTarget.releasePointerCapture(event.pointerId);
    }
    drag.current = undefined;
    setDragging(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = event.shiftKey ? 0.1 : 0.02;
    const back = horizontal ? 'ArrowLeft' : 'ArrowUp';
    const forward = horizontal ? 'ArrowRight' : 'ArrowDown';
    if (event.key !== back && event.key !== forward) return;
    event.preventDefault();
    resize(moved(split.sizes, index, event.key === back ? -step : step));
  };

  return (
    <div
      className="term-gutter"
      role="separator"
      aria-orientation={horizontal ? 'vertical' : 'horizontal'}
      aria-label="Resize panes"
      aria-valuenow={Math.round((split.sizes[index - 1] ?? 0) * 100)}
      aria-valuemin={0}
      aria-valuemax={100}
      tabIndex={0}
      data-dragging={dragging}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onKeyDown={onKeyDown}
    />
  );
}

function PaneView({ tab, paneId }: { tab: TerminalTab; paneId: string }) {
  const content = useTerminals((state) => state.panes.get(paneId));
  const active = tab.activePaneId === paneId;
  if (content === undefined) return null;
  return content.kind === 'terminal' ? (
    <TerminalPaneView pane={content.pane} active={active} />
  ) : (
    <PlayerPane player={content.player} active={active} />
  );
}

function keyOf(node: LayoutNode): string {
  return node.kind === 'pane' ? node.paneId : node.id;
}

/** A tab's layout: splits of panes, with draggable gutters between them. */
export function LayoutView({ tab, node }: { tab: TerminalTab; node: LayoutNode }) {
  if (node.kind === 'pane') return <PaneView tab={tab} paneId={node.paneId} />;
  return (
    <div className="term-split" data-direction={node.direction}>
      {node.children.map((child, index) => (
        <Fragment key={keyOf(child)}>
          {index > 0 && <Gutter tab={tab} split={node} index={index} />}
          <div className="term-split-cell" style={{ flexGrow: node.sizes[index] ?? 1 }}>
            <LayoutView tab={tab} node={child} />
          </div>
        </Fragment>
      ))}
    </div>
  );
}
