import { useVirtualizer, type VirtualItem } from '@tanstack/react-virtual';
import {
  memo,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type FocusEvent,
  type RefObject,
} from 'react';
import { Badge } from '../../ui/Badge';
import { formatCount } from '../../ui/format';
import { Icon } from '../../ui/icons';
import { useKeepRendered } from '../../ui/keep-rendered';
import type { NodeStatus } from '../../../../shared/model';
import { cardRows, columnsFor, rowOf, sameNodes, type CardRow, type NodeGroup } from './fleet';
import { NodeCard } from './NodeCard';

/** A card's minimum width and the gap between cards; as in nodes.css. */
const cardMinWidth = 440;
const cardGap = 12;
/** First guesses, before a row is measured: a heading, a row of connected cards. */
const headerEstimate = 40;
const cardsEstimate = 300;

const GroupHeading = memo(function GroupHeading({
  group,
  collapsed,
  total,
  onToggle,
}: {
  group: NodeGroup;
  collapsed: boolean;
  /** The group's size before the search, when the search narrowed it. */
  total: number | undefined;
  onToggle: (groupId: string) => void;
}) {
  const count =
    total === undefined || total === group.nodes.length
      ? formatCount(group.nodes.length)
      : `${formatCount(group.nodes.length)} of ${formatCount(total)}`;
  return (
    <h2 className="node-group-heading">
      <button
        type="button"
        className="node-group-toggle"
        data-focus-key={`group:${group.id}`}
        aria-expanded={!collapsed}
        onClick={() => onToggle(group.id)}
      >
        <Icon name={collapsed ? 'chevronRight' : 'chevronDown'} size={14} />
        <span>{group.label}</span>
        <Badge tone="neutral" plain>
          {count}
          {/* "1 of 120 nodes": the noun goes with the last number. */}
          <span className="visually-hidden">
            {(total ?? group.nodes.length) === 1 ? ' node' : ' nodes'}
          </span>
        </Badge>
      </button>
    </h2>
  );
});

/** Up to `columns` cards side by side; skips rendering while it holds the same nodes. */
const CardsRow = memo(
  function CardsRow({
    nodes,
    columns,
    level,
  }: {
    nodes: readonly NodeStatus[];
    columns: number;
    /** The cards' heading level: 3 under a group's heading. */
    level: 2 | 3;
  }) {
    return (
      <div
        className="node-card-row"
        role="list"
        style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}
      >
        {nodes.map((node) => (
          <div
            key={node.nodeId}
            role="listitem"
            className="node-card-cell"
            data-focus-key={`node:${node.nodeId}`}
          >
            <NodeCard node={node} level={level} />
          </div>
        ))}
      </div>
    );
  },
  (before, after) =>
    before.columns === after.columns &&
    before.level === after.level &&
    sameNodes(before.nodes, after.nodes),
);

/** Rows drawn before the list has a height (not laid out yet, or nowhere to lay it out). */
const unmeasuredRows = 8;

/**
 * What the virtualiser says is on screen; before the scroller has a height (it reports
 * nothing then), the first rows at their estimated places, so the view is never blank.
 */
function visibleItems(
  items: readonly VirtualItem[],
  rows: readonly CardRow[],
  scrollMargin: number,
): readonly Pick<VirtualItem, 'index' | 'key' | 'start'>[] {
  if (items.length > 0 || rows.length === 0) return items;
  let start = scrollMargin;
  return rows.slice(0, unmeasuredRows).map((row, index) => {
    const item = { index, key: row.key, start };
    start += row.type === 'header' ? headerEstimate : cardsEstimate;
    return item;
  });
}

/** Follows an element's content width (without padding), 0 until it is laid out. */
function useContentWidth(element: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const target = element.current;
    if (target === null) return;
    const measure = (): void => {
      const style = getComputedStyle(target);
      const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
      setWidth(Math.max(0, target.clientWidth - (Number.isNaN(padding) ? 0 : padding)));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(target);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

/**
 * The node cards in their groups, each group under a heading that collapses it. Only the
 * rows on screen (and a few beyond) are in the DOM, so 500 nodes cost what a screenful
 * does; a row that holds the focus stays rendered while scrolled away, so focus is never
 * lost to the virtualiser. `scroller` is the element that scrolls the list.
 */
export function NodeCardList({
  groups,
  grouped,
  collapsed,
  totals,
  onToggle,
  scroller,
  reveal,
  onRevealed,
}: {
  groups: readonly NodeGroup[];
  /** False: one group, shown without a heading. */
  grouped: boolean;
  collapsed: ReadonlySet<string>;
  /** Each group's size before the search narrowed it, by group id. */
  totals: ReadonlyMap<string, number>;
  onToggle: (groupId: string) => void;
  scroller: RefObject<HTMLDivElement | null>;
  /** A node to scroll to and focus once its card is in the list. */
  reveal?: string | undefined;
  onRevealed?: () => void;
}) {
  const list = useRef<HTMLDivElement>(null);
  const width = useContentWidth(scroller);
  const columns = width === 0 ? 1 : columnsFor(width, cardMinWidth, cardGap);
  const rows = useMemo(
    () => cardRows(groups, collapsed, columns, grouped),
    [groups, collapsed, columns, grouped],
  );

  // What holds the focus: a group's heading (`group:<id>`) or a node's card (`node:<id>`).
  // Its row stays rendered however far it scrolls, and when a card moves (its node changed
  // state, so group) the focus follows it instead of falling to the page.
  const [anchor, setAnchor] = useState<string | undefined>();
  const anchorIndex = useMemo(() => rowOf(rows, anchor), [rows, anchor]);
  const rangeExtractor = useKeepRendered(anchorIndex);
  // Set when the anchor is a revealed node: it takes the focus wherever the focus is.
  const claim = useRef(false);
  useLayoutEffect(() => {
    const active = document.activeElement;
    const lost = active === null || active === document.body;
    if (anchor === undefined || (!lost && !claim.current)) return;
    // The focused element went with its old row: focus the card (or heading) where it is now.
    const target = list.current?.querySelector<HTMLElement>(
      `[data-focus-key="${CSS.escape(anchor)}"]`,
    );
    const focusable = target?.matches('button') ? target : target?.querySelector('article');
    if (focusable === null || focusable === undefined) return;
    focusable.focus();
    claim.current = false;
  });

  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    setScrollMargin(list.current?.offsetTop ?? 0);
  }, []);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (rows[index]?.type === 'header' ? headerEstimate : cardsEstimate),
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 2,
    scrollMargin,
    rangeExtractor,
  });

  // Revealing: the node's row becomes the anchor (so it is drawn wherever it is), the list
  // scrolls to it, and the anchor effect above focuses its card once it is drawn.
  useLayoutEffect(() => {
    if (reveal === undefined) return;
    const key = `node:${reveal}`;
    const index = rowOf(rows, key);
    if (index < 0) return;
    claim.current = true;
    setAnchor(key);
    virtualizer.scrollToIndex(index, { align: 'auto' });
    onRevealed?.();
  }, [reveal, rows, virtualizer, onRevealed]);

  const onFocus = (event: FocusEvent): void => {
    const key = (event.target as HTMLElement).closest<HTMLElement>('[data-focus-key]')?.dataset
      .focusKey;
    if (key !== anchor) setAnchor(key);
  };
  const onBlur = (event: FocusEvent): void => {
    const left = event.target;
    // Checked once the update that blurred it is done: an element React removed (its row
    // moved) keeps the anchor; focus that moved out of the list drops it.
    queueMicrotask(() => {
      if (!left.isConnected) return;
      if (!list.current?.contains(document.activeElement)) setAnchor(undefined);
    });
  };

  return (
    <div
      ref={list}
      className="node-card-list"
      style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
      onFocus={onFocus}
      onBlur={onBlur}
    >
      {visibleItems(virtualizer.getVirtualItems(), rows, scrollMargin).map((item) => {
        const row = rows[item.index];
        if (row === undefined) return null;
        return (
          <div
            key={item.key}
            ref={virtualizer.measureElement}
            data-index={item.index}
            className="node-list-row"
            style={{ transform: `translateY(${item.start - scrollMargin}px)` }}
          >
            {row.type === 'header' ? (
              <GroupHeading
                group={row.group}
                collapsed={row.collapsed}
                total={totals.get(row.group.id)}
                onToggle={onToggle}
              />
            ) : (
              <CardsRow nodes={row.nodes} columns={columns} level={grouped ? 3 : 2} />
            )}
          </div>
        );
      })}
    </div>
  );
}
