import { useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useModel, useNodes, useResources, useResourceViews } from '../../app/context';
import type { NodeStatus } from '../../../../shared/model';
import { nodeIdsNamed } from '../nodes/fleet';
import type { NodeScope } from '../nodes/nodes-store';
import type { ResourceIndex } from './delta';
import type { ResourceKind, RowsByKind } from './model';
import { sandboxImagesOf, type RowCache } from './rows';
import { VisibleRows } from './visible';

/** `nodes` tells which image each node runs its sandboxes from (images only). */
export function deriveRows<K extends ResourceKind>(
  cache: RowCache,
  kind: K,
  index: ResourceIndex,
  nodes: readonly NodeStatus[] = [],
): RowsByKind[K][] {
  switch (kind) {
    case 'pods':
      return cache.podRows(index) as RowsByKind[K][];
    case 'containers':
      return cache.containerRows(index) as RowsByKind[K][];
    case 'images':
      return cache.imageRows(index, sandboxImagesOf(nodes)) as RowsByKind[K][];
  }
  throw new Error(`unknown resource kind ${String(kind)}`);
}

export function scopeNodeId(scope: NodeScope): string | undefined {
  return scope.kind === 'node' ? scope.nodeId : undefined;
}

/**
 * The ids of reconnecting nodes, as one string so the selector's result compares equal
 * while the set is the same (node statuses change every attempt).
 */
function useDownKey(): string {
  return useNodes((state) =>
    state.nodes
      .filter((node) => node.state === 'reconnecting')
      .map((node) => node.nodeId)
      .join('\u0000'),
  );
}

/** Rows of nodes that are down are held back: they are last known, not live. */
export function withoutDown<R extends { readonly nodeId: string }>(
  rows: R[],
  down: ReadonlySet<string>,
): R[] {
  return down.size === 0 ? rows : rows.filter((row) => !down.has(row.nodeId));
}

/**
 * Every row of a kind, across all connected nodes, unfiltered and unsorted. A node that
 * is reconnecting keeps its rows in the store (they come back with its reset), but they
 * are not shown: see NodeDownBanner and `useHiddenCounts`.
 */
export function useAllRows<K extends ResourceKind>(kind: K): RowsByKind[K][] {
  const model = useModel();
  const index = useResources((state) => state.index);
  const nodes = useNodes((state) => state.nodes);
  const downKey = useDownKey();
  const all = useMemo(
    () => deriveRows(model.rows, kind, index, nodes),
    [model, kind, index, nodes],
  );
  return useMemo(
    () => withoutDown(all, new Set(downKey === '' ? [] : downKey.split('\u0000'))),
    [all, downKey],
  );
}

/** How many rows of a kind each reconnecting node holds back. */
export function useHiddenCounts(kind: ResourceKind): ReadonlyMap<string, number> {
  const downKey = useDownKey();
  const items = useResources((state) => state.index[kind]);
  return useMemo(() => {
    const counts = new Map<string, number>();
    if (downKey === '') return counts;
    const down = new Set(downKey.split('\u0000'));
    for (const item of items.values()) {
      if (down.has(item.nodeId)) counts.set(item.nodeId, (counts.get(item.nodeId) ?? 0) + 1);
    }
    return counts;
  }, [downKey, items]);
}

/**
 * What a table shows: rows in scope, sorted, then filtered. Sorting comes first and is
 * memoised on its own, so a keystroke in the filter costs one linear pass, not a sort;
 * see VisibleRows for the filter.
 */
export function useVisibleRows<K extends ResourceKind>(
  kind: K,
): { rows: readonly RowsByKind[K][]; total: number; error?: string } {
  const all = useAllRows(kind);
  const { filter, sort } = useResourceViews(
    useShallow((state) => ({ filter: state.byKind[kind].filter, sort: state.byKind[kind].sort })),
  );
  const scope = useNodes((state) => state.scope);
  const nodeId = scopeNodeId(scope);
  const named = useNodesNamed(filter.node);
  const model = useModel();
  const sorted = useMemo(() => model.rows.sorted(kind, all, sort), [model, kind, all, sort]);
  const visible = useRef<VisibleRows<K> | undefined>(undefined);
  return useMemo(
    () =>
      (visible.current ??= new VisibleRows()).compute(
        kind,
        all,
        sorted,
        filter,
        nodeId,
        named,
        sort,
      ),
    [kind, all, sorted, filter, nodeId, named, sort],
  );
}

/**
 * The ids of the nodes whose name has every word of the Node filter (undefined when it is
 * empty). Resolved once per filter and node list, so the row test is a set lookup.
 */
export function useNodesNamed(query: string): ReadonlySet<string> | undefined {
  const nodes = useNodes((state) => state.nodes);
  const last = useRef<ReadonlySet<string> | undefined>(undefined);
  return useMemo(() => {
    const next = nodeIdsNamed(nodes, query);
    // The same nodes as before (a status changed, not a name): the same set, so the
    // filtered rows are kept instead of filtered again.
    const previous = last.current;
    if (
      next !== undefined &&
      previous !== undefined &&
      next.size === previous.size &&
      [...next].every((id) => previous.has(id))
    ) {
      return previous;
    }
    last.current = next;
    return next;
  }, [nodes, query]);
}

/** nodeId → the node's name, for the Node column and messages. */
export function useNodeNames(): ReadonlyMap<string, string> {
  const nodes = useNodes((state) => state.nodes);
  return useMemo(() => new Map(nodes.map((node) => [node.nodeId, node.name])), [nodes]);
}
