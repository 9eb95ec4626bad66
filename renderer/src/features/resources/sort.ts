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

/**
 * Sorts a copy. Ties fall back to the row key, so equal rows never swap places between
 * updates (a live table whose rows jump around is unusable).
 */
export function sortRows<K extends ResourceKind>(
  kind: K,
  rows: readonly RowsByKind[K][],
  sort: SortState,
): RowsByKind[K][] {
  const keys: SortKeys<RowsByKind[K]> = sortKeys[kind];
  const valueOf = keys[sort.column] ?? keys.name;
  const sign = sort.direction === 'asc' ? 1 : -1;
  if (valueOf === undefined) return [...rows];
  // Decorate once: computing the key inside the comparator costs n log n calls.
  const decorated = rows.map((row) => ({ row, value: valueOf(row) }));
  decorated.sort(
    (a, b) =>
      sign * compareValues(a.value, b.value) ||
      (a.row.key < b.row.key ? -1 : a.row.key > b.row.key ? 1 : 0),
  );
  return decorated.map((entry) => entry.row);
}

/** Clicking a column: first ascending, again to flip. */
export function nextSort(current: SortState, column: string): SortState {
  if (current.column !== column) return { column, direction: 'asc' };
  return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' };
}
