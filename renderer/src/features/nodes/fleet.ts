/**
 * The node list at fleet size (hundreds of nodes): searching it, grouping it, and laying
 * out the grouped cards as rows a virtualised list draws. Pure, so it is tested without a
 * DOM; each step is memoised on its input's identity, so a status change costs one pass
 * over the nodes, and nothing when the list is the same.
 */
import type { NodeConnectionState, NodeStatus } from '../../../../shared/model';

/** "node-2" before "node-10", case-insensitively: how people number their nodes. */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

const sortedCache = new WeakMap<readonly NodeStatus[], readonly NodeStatus[]>();

/** The nodes by name, numbers in numeric order; the same array for the same list. */
export function sortedByName(nodes: readonly NodeStatus[]): readonly NodeStatus[] {
  let sorted = sortedCache.get(nodes);
  if (sorted === undefined) {
    sorted = [...nodes].sort(
      (a, b) => collator.compare(a.name, b.name) || collator.compare(a.nodeId, b.nodeId),
    );
    sortedCache.set(nodes, sorted);
  }
  return sorted;
}

const searchCache = new WeakMap<NodeStatus, string>();

/** What a node search looks in: name, endpoint, state, kind (local, ssh) and origin. */
function searchText(node: NodeStatus): string {
  let text = searchCache.get(node);
  if (text === undefined) {
    text = [node.name, node.endpoint, node.state, node.kind, node.origin, node.runtimeEndpoint]
      .filter((part) => part !== undefined)
      .join(' ')
      .toLowerCase();
    searchCache.set(node, text);
  }
  return text;
}

/** The words of a query, lower-cased; none for a blank one. */
export function queryWords(query: string): readonly string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** The nodes whose name, endpoint, state, kind or origin has every word of `query`, in order. */
export function filterNodes(nodes: readonly NodeStatus[], query: string): readonly NodeStatus[] {
  const words = queryWords(query);
  if (words.length === 0) return nodes;
  const found = nodes.filter((node) => {
    const text = searchText(node);
    return words.every((word) => text.includes(word));
  });
  return found.length === nodes.length ? nodes : found;
}

/**
 * The nodes a query finds: every word must appear in the node's name, endpoint, state,
 * kind or origin. Names that start with the query come first, then names that contain it,
 * then the rest (found by endpoint or state), each in the order given.
 */
export function searchNodes(nodes: readonly NodeStatus[], query: string): readonly NodeStatus[] {
  const words = queryWords(query);
  if (words.length === 0) return nodes;
  const whole = words.join(' ');
  const starts: NodeStatus[] = [];
  const contains: NodeStatus[] = [];
  const others: NodeStatus[] = [];
  for (const node of nodes) {
    const text = searchText(node);
    if (!words.every((word) => text.includes(word))) continue;
    const name = node.name.toLowerCase();
    if (name.startsWith(whole)) starts.push(node);
    else if (name.includes(whole)) contains.push(node);
    else others.push(node);
  }
  return starts.length === nodes.length ? nodes : [...starts, ...contains, ...others];
}

/** The node ids whose name has every word of `query`: the Node column's filter. */
export function nodeIdsNamed(
  nodes: readonly NodeStatus[],
  query: string,
): ReadonlySet<string> | undefined {
  const words = queryWords(query);
  if (words.length === 0) return undefined;
  const ids = new Set<string>();
  for (const node of nodes) {
    const name = node.name.toLowerCase();
    if (words.every((word) => name.includes(word))) ids.add(node.nodeId);
  }
  return ids;
}

export type NodeGrouping = 'state' | 'kind' | 'origin' | 'none';

export const groupingLabels: Readonly<Record<NodeGrouping, string>> = {
  state: 'State',
  kind: 'Local or SSH',
  origin: 'Saved or discovered',
  none: 'No grouping',
};

export interface NodeGroup {
  /** Stable across updates, e.g. `state:failed`: what the collapsed set holds. */
  readonly id: string;
  readonly label: string;
  readonly nodes: readonly NodeStatus[];
}

/** The order groups come in: what needs attention first. */
const stateOrder: readonly NodeConnectionState[] = [
  'failed',
  'reconnecting',
  'connecting',
  'connected',
  'disconnected',
];

const stateGroupLabels: Readonly<Record<NodeConnectionState, string>> = {
  failed: 'Failed',
  reconnecting: 'Reconnecting',
  connecting: 'Connecting',
  connected: 'Connected',
  disconnected: 'Not connected',
};

function groupKey(grouping: NodeGrouping, node: NodeStatus): string {
  switch (grouping) {
    case 'state':
      return node.state;
    case 'kind':
      return node.kind;
    case 'origin':
      return node.origin;
    case 'none':
      return 'all';
  }
}

function groupLabel(grouping: NodeGrouping, key: string): string {
  switch (grouping) {
    case 'state':
      return stateGroupLabels[key as NodeConnectionState] ?? key;
    case 'kind':
      return key === 'ssh' ? 'Over SSH' : 'On this machine';
    case 'origin':
      return key === 'saved' ? 'Saved' : 'Discovered';
    case 'none':
      return 'All nodes';
  }
}

function rank(grouping: NodeGrouping, key: string): number {
  const order: readonly string[] =
    grouping === 'state' ? stateOrder : grouping === 'kind' ? ['local', 'ssh'] : ['saved'];
  const at = order.indexOf(key);
  return at < 0 ? order.length : at;
}

/**
 * The nodes in groups, each group in the nodes' order; groups without nodes are left out.
 * States needing attention come first (failed, reconnecting), then connected, then the
 * rest; an unknown key goes last, under its own name.
 */
export function groupNodes(nodes: readonly NodeStatus[], grouping: NodeGrouping): NodeGroup[] {
  const byKey = new Map<string, NodeStatus[]>();
  for (const node of nodes) {
    const key = groupKey(grouping, node);
    let members = byKey.get(key);
    if (members === undefined) byKey.set(key, (members = []));
    members.push(node);
  }
  return [...byKey]
    .sort(([a], [b]) => rank(grouping, a) - rank(grouping, b) || a.localeCompare(b))
    .map(([key, members]) => ({
      id: `${grouping}:${key}`,
      label: groupLabel(grouping, key),
      nodes: members,
    }));
}

/** One row of the card list: a group's heading, or up to `columns` of its cards. */
export type CardRow =
  | {
      readonly type: 'header';
      readonly key: string;
      readonly group: NodeGroup;
      readonly collapsed: boolean;
    }
  | { readonly type: 'cards'; readonly key: string; readonly nodes: readonly NodeStatus[] };

/**
 * The rows a virtualised card list draws: each group's heading, then (unless collapsed)
 * its cards, `columns` to a row. A row's key names its group and its first node, so a
 * row keeps its key (and its measured height) while the nodes in it stay the same.
 */
export function cardRows(
  groups: readonly NodeGroup[],
  collapsed: ReadonlySet<string>,
  columns: number,
  withHeaders = true,
): CardRow[] {
  const perRow = Math.max(1, Math.floor(columns));
  const rows: CardRow[] = [];
  for (const group of groups) {
    const isCollapsed = withHeaders && collapsed.has(group.id);
    if (withHeaders) rows.push({ type: 'header', key: group.id, group, collapsed: isCollapsed });
    if (isCollapsed) continue;
    for (let at = 0; at < group.nodes.length; at += perRow) {
      const members = group.nodes.slice(at, at + perRow);
      rows.push({ type: 'cards', key: `${group.id}/${members[0]?.nodeId ?? at}`, nodes: members });
    }
  }
  return rows;
}

/** How many cards of `minWidth` fit side by side in `width`, with `gap` between them. */
export function columnsFor(width: number, minWidth: number, gap: number): number {
  return Math.max(1, Math.floor((width + gap) / (minWidth + gap)));
}

/** The index of the row that holds `anchor` (`group:<id>` or `node:<id>`), -1 for none. */
export function rowOf(rows: readonly CardRow[], anchor: string | undefined): number {
  if (anchor === undefined) return -1;
  if (anchor.startsWith('group:')) {
    const id = anchor.slice('group:'.length);
    return rows.findIndex((row) => row.type === 'header' && row.key === id);
  }
  const nodeId = anchor.slice('node:'.length);
  return rows.findIndex(
    (row) => row.type === 'cards' && row.nodes.some((node) => node.nodeId === nodeId),
  );
}

/** Whether two rows of nodes hold the same node objects: an unchanged row skips rendering. */
export function sameNodes(a: readonly NodeStatus[], b: readonly NodeStatus[]): boolean {
  return a.length === b.length && a.every((node, index) => node === b[index]);
}
