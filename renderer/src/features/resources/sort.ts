import type { ContainerRow, ImageRow, PodRow, ResourceKind, RowsByKind } from './model';

export type SortDirection = 'asc' | 'desc';

export interface SortState {
  readonly column: string;
  readonly direction: SortDirection;
}

type SortValue = string | number;
type SortKeys<Row> = Readonly<Record<string, (row: Row) => SortValue>>;

const podSortKeys: SortKeys<PodRow> = {
  name: (row) => row.name,
  namespace: (row) => row.namespace,
  state: (row) => row.state,
  containers: (row) => row.containerCount,
  attempt: (row) => row.attempt,
  node: (row) => row.nodeId,
  age: (row) => -row.createdAt,
  id: (row) => row.id,
};

const containerSortKeys: SortKeys<ContainerRow> = {
  name: (row) => row.name,
  pod: (row) => row.podName,
  namespace: (row) => row.namespace,
  image: (row) => row.image,
  state: (row) => row.state,
  attempt: (row) => row.attempt,
  node: (row) => row.nodeId,
  age: (row) => -row.createdAt,
  id: (row) => row.id,
};

const imageSortKeys: SortKeys<ImageRow> = {
  name: (row) => row.displayName,
  id: (row) => row.id,
  size: (row) => row.sizeBytes,
  used: (row) => row.usedBy + row.sandboxes,
  node: (row) => row.nodeId,
};

export const sortKeys: { readonly [K in ResourceKind]: SortKeys<RowsByKind[K]> } = {
  pods: podSortKeys,
  containers: containerSortKeys,
  images: imageSortKeys,
};

export const defaultSort: { readonly [K in ResourceKind]: SortState } = {
  pods: { column: 'name', direction: 'asc' },
  containers: { column: 'name', direction: 'asc' },
  images: { column: 'name', direction: 'asc' },
};

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return collator.compare(String(a), String(b));
}

function compareKeys(a: { readonly key: string }, b: { readonly key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The order a table's rows are in: the column's value, ties by the row key, so equal rows
 * never swap places between updates (a live table whose rows jump around is unusable).
 * A total order: every row has one place.
 */
export function rowOrder<K extends ResourceKind>(
  kind: K,
  sort: SortState,
): (a: RowsByKind[K], b: RowsByKind[K]) => number {
  const keys: SortKeys<RowsByKind[K]> = sortKeys[kind];
  const valueOf = keys[sort.column] ?? keys.name;
  const sign = sort.direction === 'asc' ? 1 : -1;
  if (valueOf === undefined) return compareKeys;
  return (a, b) => sign * compareValues(valueOf(a), valueOf(b)) || compareKeys(a, b);
}

/** Sorts a copy, in `rowOrder`. */
export function sortRows<K extends ResourceKind>(
  kind: K,
  rows: readonly RowsByKind[K][],
  sort: SortState,
): RowsByKind[K][] {
  const keys: SortKeys<RowsByKind[K]> = sortKeys[kind];
  const valueOf = keys[sort.column] ?? keys.name;
  const sign = sort.direction === 'asc' ? 1 : -1;
  if (valueOf === undefined) return [...rows].sort(compareKeys);
  // Decorate once: computing the key inside the comparator costs n log n calls.
  const decorated = rows.map((row) => ({ row, value: valueOf(row) }));
  decorated.sort((a, b) => sign * compareValues(a.value, b.value) || compareKeys(a.row, b.row));
  return decorated.map((entry) => entry.row);
}

/** The first index in `sorted` whose row is not before `row`. */
function lowerBound<R>(sorted: readonly R[], row: R, order: (a: R, b: R) => number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (order(sorted[middle] as R, row) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Changes one at a time (a splice each) up to this many; beyond, one merge pass. */
const spliceLimit = 32;

/**
 * `sorted` (in `order`) with `removed` taken out and `added` put in their places: what a
 * fresh sort of the new rows returns, for k log n comparisons and a copy instead of
 * n log n comparisons. Undefined when a removed row is not in `sorted`: the caller then
 * sorts afresh.
 */
export function resorted<R>(
  sorted: readonly R[],
  removed: readonly R[],
  added: readonly R[],
  order: (a: R, b: R) => number,
): R[] | undefined {
  if (removed.length + added.length <= spliceLimit) {
    const next = sorted.slice();
    for (const row of removed) {
      const at = lowerBound(next, row, order);
      if (next[at] !== row) return undefined;
      next.splice(at, 1);
    }
    for (const row of added) next.splice(lowerBound(next, row, order), 0, row);
    return next;
  }
  const gone = new Set(removed);
  const kept = sorted.filter((row) => !gone.has(row));
  if (kept.length !== sorted.length - gone.size) return undefined;
  const joining = [...added].sort(order);
  const next: R[] = [];
  let at = 0;
  for (const row of joining) {
    while (at < kept.length && order(kept[at] as R, row) < 0) next.push(kept[at++] as R);
    next.push(row);
  }
  while (at < kept.length) next.push(kept[at++] as R);
  return next;
}

/** Clicking a column: first ascending, again to flip. */
export function nextSort(current: SortState, column: string): SortState {
  if (current.column !== column) return { column, direction: 'asc' };
  return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' };
}
