import { filterRows, rowTest, type ResourceFilter } from './filter';
import type { ResourceKind, RowsByKind } from './model';
import { rowsChangeOf } from './rows';
import { resorted, rowOrder, type SortState } from './sort';

interface LastFilter<K extends ResourceKind> {
  readonly sorted: readonly RowsByKind[K][];
  /** How many of `sorted` are in scope. */
  readonly total: number;
  readonly filter: ResourceFilter;
  readonly nodeId: string | undefined;
  /** The nodes the Node filter resolved to. */
  readonly named?: ReadonlySet<string> | undefined;
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
    last.filter.node === filter.node &&
    last.filter.text.trim() !== '' &&
    filter.text.toLowerCase().startsWith(last.filter.text.toLowerCase())
  );
}

/** The same constraints: every field of the filter, the scope and the named nodes. */
function sameFilter<K extends ResourceKind>(
  last: LastFilter<K>,
  filter: ResourceFilter,
  nodeId: string | undefined,
  named: ReadonlySet<string> | undefined,
): boolean {
  return (
    last.nodeId === nodeId &&
    last.named === named &&
    last.filter.text === filter.text &&
    last.filter.labels === filter.labels &&
    last.filter.namespace === filter.namespace &&
    last.filter.state === filter.state &&
    last.filter.podKey === filter.podKey &&
    last.filter.node === filter.node
  );
}

/**
 * What one table shows, from its kind's rows sorted: the rows in scope and through the
 * filter, and how many rows are in scope. Remembers its last answer (one per table, see
 * useVisibleRows), so that the next one starts from it: when only the rows changed, by
 * a few (RowCache.sorted says which), the answer is the last one with those few moved,
 * a cost that grows with the change, not with the fleet; when the text only grew, the
 * last answer is filtered again instead of every row.
 */
export class VisibleRows<K extends ResourceKind> {
  private last: LastFilter<K> | undefined;

  compute(
    kind: K,
    all: readonly RowsByKind[K][],
    sorted: readonly RowsByKind[K][],
    filter: ResourceFilter,
    nodeId: string | undefined,
    named: ReadonlySet<string> | undefined,
    sort?: SortState,
  ): { rows: readonly RowsByKind[K][]; total: number; error?: string } {
    const previous = this.last;
    const change = rowsChangeOf(sorted);
    if (
      previous !== undefined &&
      sort !== undefined &&
      change?.from === previous.sorted &&
      sameFilter(previous, filter, nodeId, named)
    ) {
      const patched = this.patched(kind, previous, change, sort);
      if (patched !== undefined) {
        const inScope = (row: RowsByKind[K]): boolean =>
          nodeId === undefined || row.nodeId === nodeId;
        const total =
          previous.total -
          change.removed.filter(inScope).length +
          change.added.filter(inScope).length;
        const result =
          previous.result.error === undefined
            ? { rows: patched }
            : { rows: patched, error: previous.result.error };
        this.last = { sorted, total, filter, nodeId, named, result };
        return { ...result, total };
      }
    }
    const total =
      nodeId === undefined ? all.length : all.filter((row) => row.nodeId === nodeId).length;
    // Typing narrows: when the new text only extends the last one, the answer is a subset
    // of the last answer, so filter that (usually far fewer rows) instead of every row.
    const source =
      previous !== undefined &&
      previous.named === named &&
      refines(previous, sorted, filter, nodeId)
        ? previous.result.rows
        : sorted;
    const result = filterRows(kind, source, filter, nodeId, named);
    this.last = { sorted, total, filter, nodeId, named, result };
    return { ...result, total };
  }

  /** The last answer with the rows that left `sorted` out and those that joined it in. */
  private patched(
    kind: K,
    previous: LastFilter<K>,
    change: {
      readonly removed: readonly RowsByKind[K][];
      readonly added: readonly RowsByKind[K][];
    },
    sort: SortState,
  ): readonly RowsByKind[K][] | undefined {
    const { test } = rowTest(kind, previous.filter, previous.nodeId, previous.named);
    // Nothing filtered: the answer is the sorted rows themselves.
    if (test === undefined) return undefined;
    return resorted(
      previous.result.rows,
      change.removed.filter(test),
      change.added.filter(test),
      rowOrder(kind, sort),
    );
  }
}
