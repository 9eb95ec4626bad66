import { describe, expect, it } from 'vitest';
import type { NodeConnectionState, NodeStatus } from '../../../../shared/model';
import {
  cardRows,
  columnsFor,
  filterNodes,
  groupNodes,
  nodeIdsNamed,
  rowOf,
  sameNodes,
  searchNodes,
  sortedByName,
} from './fleet';
import { keepUnchanged } from './nodes-store';

function node(
  name: string,
  state: NodeConnectionState = 'connected',
  extra: Partial<NodeStatus> = {},
): NodeStatus {
  return {
    nodeId: `id-${name}`,
    name,
    kind: 'local',
    endpoint: `unix:///run/${name}/containerd.sock`,
    origin: 'saved',
    state,
    ...extra,
  };
}

/** 500 nodes: worker-1…worker-500, one in 25 failed, one in 10 over SSH. */
function fleet(size = 500): NodeStatus[] {
  return Array.from({ length: size }, (_, index) =>
    node(`worker-${index + 1}`, index % 25 === 24 ? 'failed' : 'connected', {
      ...(index % 10 === 9 && {
        kind: 'ssh',
        endpoint: `ssh://root@10.0.${Math.floor(index / 250)}.${index % 250}`,
      }),
    }),
  );
}

describe('the node picker', () => {
  it('sorts names as people number nodes: worker-2 before worker-10', () => {
    const nodes = [node('worker-10'), node('Worker-2'), node('worker-1'), node('db')];
    expect(sortedByName(nodes).map((n) => n.name)).toEqual([
      'db',
      'worker-1',
      'Worker-2',
      'worker-10',
    ]);
    // Memoised on the list: the same sorted array while the list is the same.
    expect(sortedByName(nodes)).toBe(sortedByName(nodes));
  });

  it('finds by name first, then by endpoint or state; every word must match', () => {
    const nodes = sortedByName(fleet());
    const found = searchNodes(nodes, 'worker-42');
    // Names starting with the query first, in name order: worker-42, worker-420…429.
    expect(found.map((n) => n.name).slice(0, 3)).toEqual(['worker-42', 'worker-420', 'worker-421']);
    expect(found).toHaveLength(11);
    // "1" is in every name's endpoint too; names that start with it don't exist, names
    // containing it come before nodes found only by endpoint.
    const byState = searchNodes(nodes, 'failed');
    expect(byState).toHaveLength(20);
    expect(byState.every((n) => n.state === 'failed')).toBe(true);
    expect(searchNodes(nodes, '10.0.1').every((n) => n.kind === 'ssh')).toBe(true);
    expect(searchNodes(nodes, 'ssh failed').map((n) => n.name)).toEqual([
      'worker-50',
      'worker-100',
      'worker-150',
      'worker-200',
      'worker-250',
      'worker-300',
      'worker-350',
      'worker-400',
      'worker-450',
      'worker-500',
    ]);
    expect(searchNodes(nodes, 'WORKER-7 ')[0]?.name).toBe('worker-7');
    expect(searchNodes(nodes, 'nothing-like-it')).toEqual([]);
    // Blank: the list itself, not a copy.
    expect(searchNodes(nodes, '  ')).toBe(nodes);
  });

  it('ranks a name that contains the query after names that start with it', () => {
    const nodes = [node('eu-db-1'), node('db-2'), node('cache', 'connected', { endpoint: 'db' })];
    expect(searchNodes(nodes, 'db').map((n) => n.name)).toEqual(['db-2', 'eu-db-1', 'cache']);
    // The Nodes view keeps its order: filterNodes doesn't rank.
    expect(filterNodes(nodes, 'db').map((n) => n.name)).toEqual(['eu-db-1', 'db-2', 'cache']);
    expect(filterNodes(nodes, '')).toBe(nodes);
  });

  it('resolves the Node column filter to node ids, by name only', () => {
    const nodes = fleet(30);
    expect(nodeIdsNamed(nodes, '')).toBeUndefined();
    expect([...(nodeIdsNamed(nodes, 'worker-2') ?? [])].sort()).toEqual(
      [2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29].map((n) => `id-worker-${n}`).sort(),
    );
    // An endpoint is not a name.
    expect(nodeIdsNamed(nodes, 'containerd.sock')?.size).toBe(0);
  });
});

describe('node cards in groups', () => {
  it('groups by state, what needs attention first, empty groups left out', () => {
    const nodes = [
      node('a', 'connected'),
      node('b', 'disconnected'),
      node('c', 'failed'),
      node('d', 'reconnecting'),
      node('e', 'connected'),
    ];
    const groups = groupNodes(nodes, 'state');
    expect(groups.map((group) => [group.id, group.label, group.nodes.map((n) => n.name)])).toEqual([
      ['state:failed', 'Failed', ['c']],
      ['state:reconnecting', 'Reconnecting', ['d']],
      ['state:connected', 'Connected', ['a', 'e']],
      ['state:disconnected', 'Not connected', ['b']],
    ]);
  });

  it('groups by local or SSH, by origin, or not at all', () => {
    const nodes = fleet(20);
    expect(groupNodes(nodes, 'kind').map((g) => [g.label, g.nodes.length])).toEqual([
      ['On this machine', 18],
      ['Over SSH', 2],
    ]);
    const discovered = [node('x', 'connected', { origin: 'discovered' }), node('y')];
    expect(groupNodes(discovered, 'origin').map((g) => g.label)).toEqual(['Saved', 'Discovered']);
    expect(groupNodes(nodes, 'none')).toEqual([{ id: 'none:all', label: 'All nodes', nodes }]);
  });

  it('puts a state it does not know last, under its own name', () => {
    const odd = node('z', 'connected');
    const groups = groupNodes(
      [{ ...odd, state: 'paused' as NodeConnectionState }, node('a')],
      'state',
    );
    expect(groups.map((group) => group.label)).toEqual(['Connected', 'paused']);
  });

  it('lays out headings and rows of cards; a collapsed group is its heading alone', () => {
    const groups = groupNodes(fleet(), 'state');
    const rows = cardRows(groups, new Set(), 3);
    // Failed: 20 cards in 7 rows; connected: 480 in 160 rows; two headings.
    expect(rows).toHaveLength(2 + 7 + 160);
    expect(rows[0]).toMatchObject({ type: 'header', key: 'state:failed', collapsed: false });
    expect(rows[1]).toMatchObject({ type: 'cards' });
    expect(rows[7]).toMatchObject({ type: 'cards' });
    expect(rows[7]?.type === 'cards' && rows[7].nodes).toHaveLength(2);
    expect(rows[8]).toMatchObject({ type: 'header', key: 'state:connected' });

    const collapsed = cardRows(groups, new Set(['state:connected']), 3);
    expect(collapsed).toHaveLength(2 + 7);
    expect(collapsed.at(-1)).toMatchObject({ type: 'header', collapsed: true });
    // Without headings (no grouping), collapsing means nothing.
    expect(cardRows(groupNodes(fleet(10), 'none'), new Set(['none:all']), 4, false)).toHaveLength(
      3,
    );
    // Keys are stable across a re-layout with the same nodes, and unique.
    const again = cardRows(groupNodes(fleet(), 'state'), new Set(), 3);
    expect(again.map((row) => row.key)).toEqual(rows.map((row) => row.key));
    expect(new Set(rows.map((row) => row.key)).size).toBe(rows.length);
  });

  it('fits as many 440px columns as the width takes', () => {
    expect(columnsFor(0, 440, 12)).toBe(1);
    expect(columnsFor(439, 440, 12)).toBe(1);
    expect(columnsFor(892, 440, 12)).toBe(2);
    expect(columnsFor(1343, 440, 12)).toBe(2);
    expect(columnsFor(1344, 440, 12)).toBe(3);
  });

  it('finds the row that holds the focus: a heading or a card', () => {
    const rows = cardRows(groupNodes(fleet(), 'state'), new Set(), 2);
    expect(rowOf(rows, undefined)).toBe(-1);
    expect(rowOf(rows, 'group:state:connected')).toBe(11);
    expect(rowOf(rows, 'node:id-worker-25')).toBe(1);
    expect(rowOf(rows, 'node:id-worker-1')).toBe(12);
    expect(rowOf(rows, 'node:id-nobody')).toBe(-1);
  });
});

describe('a status change', () => {
  it('keeps every unchanged status object, and the list when nothing changed', () => {
    const before = fleet(500);
    const same = before.map((status) => ({ ...status }));
    expect(keepUnchanged(before, same)).toBe(before);

    const changed = before.map((status, index) =>
      index === 7 ? { ...status, state: 'failed' as const } : { ...status },
    );
    const after = keepUnchanged(before, changed);
    expect(after).not.toBe(before);
    expect(after.filter((status, index) => status !== before[index])).toEqual([changed[7]]);

    // Rows of cards holding the same objects compare equal: their cards don't render.
    expect(sameNodes(after.slice(0, 3), before.slice(0, 3))).toBe(true);
    expect(sameNodes(after.slice(6, 9), before.slice(6, 9))).toBe(false);
    // A node added, one removed, one moved: the others keep their objects.
    const reordered = keepUnchanged(before, [node('new'), ...same.slice(1).reverse()]);
    expect(reordered[1]).toBe(before[499]);
    expect(reordered).toHaveLength(500);
  });
});
