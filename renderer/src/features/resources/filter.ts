import { matchesSelector, parseLabelSelector } from './label-selector';
import type { AnyRow, ContainerRow, ImageRow, PodRow, ResourceKind, RowsByKind } from './model';

/** What the user narrowed a table to. Empty strings mean "no constraint". */
export interface ResourceFilter {
  /** Free text: every whitespace-separated word must appear (case-insensitive). */
  readonly text: string;
  /** A Kubernetes label selector, e.g. `app=web,tier!=db`. */
  readonly labels: string;
  readonly namespace: string;
  readonly state: string;
  /**
   * The Node column: words the node's name must have, e.g. `eu-west` for every node of a
   * region (the node selector picks one node; this picks many).
   */
  readonly node: string;
  /** Containers only: the pod they belong to (a resource key). */
  readonly podKey?: string;
}

export const emptyFilter: ResourceFilter = {
  text: '',
  labels: '',
  namespace: '',
  state: '',
  node: '',
};

export function isFiltered(filter: ResourceFilter): boolean {
  return (
    filter.text.trim() !== '' ||
    filter.labels.trim() !== '' ||
    filter.namespace !== '' ||
    filter.state !== '' ||
    filter.node.trim() !== '' ||
    filter.podKey !== undefined
  );
}

export type CompiledFilter<K extends ResourceKind> =
  | { readonly ok: true; readonly test: (row: RowsByKind[K]) => boolean }
  | { readonly ok: false; readonly error: string };

function stateOf(kind: ResourceKind, row: AnyRow): string[] {
  switch (kind) {
    case 'pods':
      return [(row as PodRow).state];
    case 'containers':
      return [(row as ContainerRow).state];
    case 'images': {
      const image = row as ImageRow;
      const states = [image.usedBy + image.sandboxes > 0 ? 'in use' : 'unused'];
      if (image.pinned) states.push('pinned');
      return states;
    }
  }
}

function namespaceOf(row: AnyRow): string | undefined {
  return 'namespace' in row ? row.namespace : undefined;
}

function labelsOf(row: AnyRow): Readonly<Record<string, string>> {
  return 'labels' in row ? row.labels : {};
}

/**
 * Turns a filter into one predicate, parsed once per change rather than once per row:
 * with 5,000 rows a keystroke must cost well under a frame. `nodeId` is the node in scope;
 * `named`, the nodes whose name matches `filter.node` (the caller knows the names), so a
 * row costs a set lookup however many nodes there are.
 */
export function compileFilter<K extends ResourceKind>(
  kind: K,
  filter: ResourceFilter,
  nodeId?: string,
  named?: ReadonlySet<string>,
): CompiledFilter<K> {
  const selector = parseLabelSelector(filter.labels);
  if (!selector.ok) return { ok: false, error: selector.error };
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  const { requirements } = selector;
  const { namespace, state, podKey } = filter;
  // A node filter without the names to resolve it matches by nothing: every row stays.
  const byName = filter.node.trim() === '' ? undefined : named;
  const test = (row: RowsByKind[K]): boolean => {
    if (nodeId !== undefined && row.nodeId !== nodeId) return false;
    if (byName !== undefined && !byName.has(row.nodeId)) return false;
    if (podKey !== undefined && kind === 'containers' && (row as ContainerRow).podKey !== podKey) {
      return false;
    }
    if (namespace !== '' && kind !== 'images' && namespaceOf(row) !== namespace) return false;
    if (state !== '' && !stateOf(kind, row).includes(state)) return false;
    if (requirements.length > 0 && !matchesSelector(labelsOf(row), requirements)) return false;
    for (const word of words) if (!row.search.includes(word)) return false;
    return true;
  };
  return { ok: true, test };
}

/**
 * The one test filterRows applies: undefined when nothing is filtered. An unfinished
 * label selector is left out (with its error), so it doesn't blank the table while the
 * user types it.
 */
export function rowTest<K extends ResourceKind>(
  kind: K,
  filter: ResourceFilter,
  nodeId?: string,
  named?: ReadonlySet<string>,
): { test?: (row: RowsByKind[K]) => boolean; error?: string } {
  if (!isFiltered(filter) && nodeId === undefined) return {};
  const compiled = compileFilter(kind, filter, nodeId, named);
  if (compiled.ok) return { test: compiled.test };
  const withoutLabels = compileFilter(kind, { ...filter, labels: '' }, nodeId, named);
  return withoutLabels.ok
    ? { test: withoutLabels.test, error: compiled.error }
    : { error: compiled.error };
}

export function filterRows<K extends ResourceKind>(
  kind: K,
  rows: readonly RowsByKind[K][],
  filter: ResourceFilter,
  nodeId?: string,
  named?: ReadonlySet<string>,
): { rows: readonly RowsByKind[K][]; error?: string } {
  // Nothing to filter on: the rows as they are (clearing the filter costs nothing).
  const { test, error } = rowTest(kind, filter, nodeId, named);
  const shown = test === undefined ? rows : rows.filter(test);
  return error === undefined ? { rows: shown } : { rows: shown, error };
}

/** The namespaces present, sorted, for the namespace menu. */
export function namespacesOf(rows: readonly AnyRow[]): string[] {
  const names = new Set<string>();
  for (const row of rows) {
    const namespace = namespaceOf(row);
    if (namespace !== undefined && namespace !== '') names.add(namespace);
  }
  return [...names].sort((a, b) => a.localeCompare(b));
}
