import { useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useModel, useNodes, useResources, useResourceViews } from '../../app/context';
import type { NodeStatus } from '../../../../shared/model';
import type { NodeScope } from '../nodes/nodes-store';
import type { ResourceIndex } from './delta';
import { filterRows, type ResourceFilter } from './filter';
import type { ResourceKind, RowsByKind } from './model';
import { sandboxImagesOf, type RowCache } from './rows';

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

/** Every row of a kind, across all connected nodes, unfiltered and unsorted. */
export function useAllRows<K extends ResourceKind>(kind: K): RowsByKind[K][] {
  const model = useModel();
  const index = useResources((state) => state.index);
  const nodes = useNodes((state) => state.nodes);
  return useMemo(() => deriveRows(model.rows, kind, index, nodes), [model, kind, index, nodes]);
}

/**
 * What a table shows: rows in scope, sorted, then filtered. Sorting comes first and is
 * memoised on its own, so a keystroke in the filter costs one linear pass, not a sort.
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
  const model = useModel();
  const sorted = useMemo(() => model.rows.sorted(kind, all, sort), [model, kind, all, sort]);
  const inScope = useMemo(
    () => (nodeId === undefined ? all.length : all.filter((row) => row.nodeId === nodeId).length),
    [all, nodeId],
  );
  // Typing narrows: when the new text only extends the last one, the answer is a subset
  // of the last answer, so filter that (usually far fewer rows) instead of every row.
  const last = useRef<LastFilter<K> | undefined>(undefined);
  const filtered = useMemo(() => {
    const previous = last.current;
    const source =
      previous !== undefined && refines(previous, sorted, filter, nodeId)
        ? previous.result.rows
        : sorted;
    const result = filterRows(kind, source, filter, nodeId);
    last.current = { sorted, filter, nodeId, result };
    return result;
  }, [kind, sorted, filter, nodeId]);
  return { ...filtered, total: inScope };
}

interface LastFilter<K extends ResourceKind> {
  readonly sorted: readonly RowsByKind[K][];
  readonly filter: ResourceFilter;
  readonly nodeId: string | undefined;
  readonly result: { rows: readonly RowsByKind[K][]; error?: string };
}

/** Whether `filter` only narrows the last one (same rows, same constraints, longer text). */
export function refines<K extends ResourceKind>(
  last: LastFilter<K>,
  sorted: readonly RowsByKind[K][],
  filter: ResourceFilter,
  nodeId: string | undefined,
): boolean {
  return (
    last.sorted === sorted &&
    last.nodeId === nodeId &&
    last.result.error === undefined &&
    last.filter.labels === filter.labels &&
    last.filter.namespace === filter.namespace &&
    last.filter.state === filter.state &&
    last.filter.podKey === filter.podKey &&
    last.filter.text.trim() !== '' &&
    filter.text.toLowerCase().startsWith(last.filter.text.toLowerCase())
  );
}

/** nodeId → the node's name, for the Node column and messages. */
export function useNodeNames(): ReadonlyMap<string, string> {
  const nodes = useNodes((state) => state.nodes);
  return useMemo(() => new Map(nodes.map((node) => [node.nodeId, node.name])), [nodes]);
}
