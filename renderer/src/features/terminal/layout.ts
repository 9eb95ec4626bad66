/**
 * A tab's panes as a tree: a pane, or a split of two or more children side by side
 * (`right`) or stacked (`down`), each child with its share of the space. Pure functions:
 * the store keeps the tree, these return new trees.
 */

export type SplitDirection = 'right' | 'down';
export type FocusDirection = 'left' | 'right' | 'up' | 'down';

export interface PaneNode {
  readonly kind: 'pane';
  readonly paneId: string;
}

export interface SplitNode {
  readonly kind: 'split';
  /** Stable across edits, for React keys. */
  readonly id: string;
  readonly direction: SplitDirection;
  readonly children: readonly LayoutNode[];
  /** Fractions of the split's size, one per child, summing to 1. */
  readonly sizes: readonly number[];
}

export type LayoutNode = PaneNode | SplitNode;

export function pane(paneId: string): PaneNode {
  return { kind: 'pane', paneId };
}

/** Pane ids in reading order (left to right, top to bottom). */
export function paneIds(node: LayoutNode): string[] {
  return node.kind === 'pane' ? [node.paneId] : node.children.flatMap(paneIds);
}

export function containsPane(node: LayoutNode, paneId: string): boolean {
  return node.kind === 'pane'
    ? node.paneId === paneId
    : node.children.some((child) => containsPane(child, paneId));
}

/**
 * Splits `target` in two, the new pane after it (right of it or below it). Splitting in
 * the direction of the split it is already in adds a sibling rather than nesting.
 */
export function splitPane(
  root: LayoutNode,
  target: string,
  newPaneId: string,
  direction: SplitDirection,
  newSplitId: () => string,
): LayoutNode {
  if (root.kind === 'pane') {
    if (root.paneId !== target) return root;
    return {
      kind: 'split',
      id: newSplitId(),
      direction,
      children: [root, pane(newPaneId)],
      sizes: [0.5, 0.5],
    };
  }
  const index = root.children.findIndex(
    (child) => child.kind === 'pane' && child.paneId === target,
  );
  if (index >= 0 && root.direction === direction) {
    const share = (root.sizes[index] ?? 0) / 2;
    return {
      ...root,
      children: [
        ...root.children.slice(0, index + 1),
        pane(newPaneId),
        ...root.children.slice(index + 1),
      ],
      sizes: [...root.sizes.slice(0, index), share, share, ...root.sizes.slice(index + 1)],
    };
  }
  return {
    ...root,
    children: root.children.map((child) =>
      splitPane(child, target, newPaneId, direction, newSplitId),
    ),
  };
}

/** Removes a pane; its space goes to its neighbours. Undefined when it was the last one. */
export function removePane(root: LayoutNode, paneId: string): LayoutNode | undefined {
  if (root.kind === 'pane') return root.paneId === paneId ? undefined : root;
  const children: LayoutNode[] = [];
  const sizes: number[] = [];
  root.children.forEach((child, index) => {
    const kept = removePane(child, paneId);
    if (kept === undefined) return;
    // A child split left with the same direction as this one folds into it.
    if (kept.kind === 'split' && kept.direction === root.direction) {
      const share = root.sizes[index] ?? 0;
      children.push(...kept.children);
      sizes.push(...kept.sizes.map((size) => size * share));
      return;
    }
    children.push(kept);
    sizes.push(root.sizes[index] ?? 0);
  });
  if (children.length === 0) return undefined;
  if (children.length === 1) return children[0];
  const total = sizes.reduce((sum, size) => sum + size, 0) || 1;
  return { ...root, children, sizes: sizes.map((size) => size / total) };
}

/** Sets a split's sizes (normalised, each at least `min`). */
export function resizeSplit(
  root: LayoutNode,
  splitId: string,
  sizes: readonly number[],
  min = 0.05,
): LayoutNode {
  if (root.kind === 'pane') return root;
  if (root.id === splitId) {
    if (sizes.length !== root.children.length) return root;
    const clamped = sizes.map((size) => Math.max(min, size));
    const total = clamped.reduce((sum, size) => sum + size, 0);
    return { ...root, sizes: clamped.map((size) => size / total) };
  }
  return {
    ...root,
    children: root.children.map((child) => resizeSplit(child, splitId, sizes, min)),
  };
}

export interface Rect {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

/** Where each pane sits, in a unit square: what "the pane to the left" means. */
export function paneRects(
  node: LayoutNode,
  rect: Rect = { left: 0, top: 0, right: 1, bottom: 1 },
  into = new Map<string, Rect>(),
): Map<string, Rect> {
  if (node.kind === 'pane') {
    into.set(node.paneId, rect);
    return into;
  }
  let offset = 0;
  node.children.forEach((child, index) => {
    const share = node.sizes[index] ?? 0;
    const childRect =
      node.direction === 'right'
        ? {
            ...rect,
            left: rect.left + (rect.right - rect.left) * offset,
            right: rect.left + (rect.right - rect.left) * (offset + share),
          }
        : {
            ...rect,
            top: rect.top + (rect.bottom - rect.top) * offset,
            bottom: rect.top + (rect.bottom - rect.top) * (offset + share),
          };
    offset += share;
    paneRects(child, childRect, into);
  });
  return into;
}

const epsilon = 1e-6;

function overlap(a1: number, a2: number, b1: number, b2: number): number {
  return Math.min(a2, b2) - Math.max(a1, b1);
}

/**
 * The pane next to `paneId` in a direction: the nearest one beyond that edge that shares
 * the most of it; undefined at the edge of the tab.
 */
export function neighbour(
  root: LayoutNode,
  paneId: string,
  direction: FocusDirection,
): string | undefined {
  const rects = paneRects(root);
  const from = rects.get(paneId);
  if (from === undefined) return undefined;
  let best: { id: string; distance: number; shared: number } | undefined;
  for (const [id, rect] of rects) {
    if (id === paneId) continue;
    const horizontal = direction === 'left' || direction === 'right';
    const distance =
      direction === 'left'
        ? from.left - rect.right
        : direction === 'right'
          ? rect.left - from.right
          : direction === 'up'
            ? from.top - rect.bottom
            : rect.top - from.bottom;
    if (distance < -epsilon) continue;
    const shared = horizontal
      ? overlap(from.top, from.bottom, rect.top, rect.bottom)
      : overlap(from.left, from.right, rect.left, rect.right);
    if (shared <= epsilon) continue;
    if (
      best === undefined ||
      distance < best.distance - epsilon ||
      (Math.abs(distance - best.distance) <= epsilon && shared > best.shared)
    ) {
      best = { id, distance, shared };
    }
  }
  return best?.id;
}
