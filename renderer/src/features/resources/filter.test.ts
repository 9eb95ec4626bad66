import { describe, expect, it } from 'vitest';
import { emptyFilter, filterRows, isFiltered, namespacesOf } from './filter';
import type { ContainerRow, ImageRow, PodRow } from './model';

function podRow(name: string, patch: Partial<PodRow> = {}): PodRow {
  const base = {
    nodeId: 'n1',
    id: `${name}-id`,
    name,
    namespace: 'default',
    uid: 'u',
    attempt: 0,
    state: 'ready' as const,
    createdAt: 0,
    labels: {},
    annotations: {},
    runtimeHandler: '',
    containerCount: 1,
    runningCount: 1,
    ...patch,
  };
  return {
    ...base,
    key: `${base.nodeId}/${base.id}`,
    search: `${base.name} ${base.namespace} ${base.id}`.toLowerCase(),
  };
}

const pods = [
  podRow('web-1', { labels: { app: 'web', tier: 'frontend' } }),
  podRow('web-2', {
    labels: { app: 'web', tier: 'frontend' },
    namespace: 'payments',
    nodeId: 'n2',
  }),
  podRow('db-1', { labels: { app: 'db', tier: 'db' }, state: 'notready' }),
];

describe('filterRows', () => {
  it('matches every word of the free text, case-insensitively', () => {
    expect(
      filterRows('pods', pods, { ...emptyFilter, text: 'WEB payments' }).rows.map((r) => r.name),
    ).toEqual(['web-2']);
  });

  it('filters by namespace, state, labels and node', () => {
    expect(filterRows('pods', pods, { ...emptyFilter, namespace: 'default' }).rows).toHaveLength(2);
    expect(
      filterRows('pods', pods, { ...emptyFilter, state: 'notready' }).rows.map((r) => r.name),
    ).toEqual(['db-1']);
    expect(
      filterRows('pods', pods, { ...emptyFilter, labels: 'app=web,tier!=db' }).rows,
    ).toHaveLength(2);
    expect(filterRows('pods', pods, emptyFilter, 'n2').rows.map((r) => r.name)).toEqual(['web-2']);
  });

  it('filters the Node column by the nodes whose names matched', () => {
    // The caller resolves names to ids (nodeIdsNamed): here "eu" matched n2 only.
    const named = new Set(['n2']);
    expect(
      filterRows('pods', pods, { ...emptyFilter, node: 'eu' }, undefined, named).rows.map(
        (r) => r.name,
      ),
    ).toEqual(['web-2']);
    // With the other filters, and with the node in scope.
    expect(
      filterRows('pods', pods, { ...emptyFilter, node: 'eu', text: 'db' }, undefined, named).rows,
    ).toEqual([]);
    expect(filterRows('pods', pods, { ...emptyFilter, node: 'eu' }, 'n1', named).rows).toEqual([]);
    // No node matched: no row. A blank node filter: no constraint.
    expect(
      filterRows('pods', pods, { ...emptyFilter, node: 'zz' }, undefined, new Set()).rows,
    ).toEqual([]);
    expect(filterRows('pods', pods, { ...emptyFilter, node: ' ' }).rows).toBe(pods);
    expect(isFiltered({ ...emptyFilter, node: 'eu' })).toBe(true);
  });

  it('keeps the other filters and reports the problem while a selector is unfinished', () => {
    const result = filterRows('pods', pods, { ...emptyFilter, text: 'db', labels: 'app in (' });
    expect(result.rows.map((r) => r.name)).toEqual(['db-1']);
    expect(result.error).toBe('Unbalanced parentheses.');
  });

  it("narrows containers to one pod's", () => {
    const containers = [
      {
        key: 'a',
        podKey: 'p1',
        nodeId: 'n1',
        search: 'a',
        labels: {},
        state: 'running',
        namespace: '',
      },
      {
        key: 'b',
        podKey: 'p2',
        nodeId: 'n1',
        search: 'b',
        labels: {},
        state: 'running',
        namespace: '',
      },
    ] as unknown as ContainerRow[];
    expect(
      filterRows('containers', containers, { ...emptyFilter, podKey: 'p2' }).rows.map((r) => r.key),
    ).toEqual(['b']);
  });

  it('filters images by use', () => {
    const images = [
      { key: 'i1', nodeId: 'n1', search: 'nginx', usedBy: 2, sandboxes: 0, pinned: false },
      { key: 'i2', nodeId: 'n1', search: 'pause', usedBy: 0, sandboxes: 0, pinned: true },
      { key: 'i3', nodeId: 'n2', search: 'pause', usedBy: 0, sandboxes: 3, pinned: false },
    ] as unknown as ImageRow[];
    expect(
      filterRows('images', images, { ...emptyFilter, state: 'unused' }).rows.map((r) => r.key),
    ).toEqual(['i2']);
    expect(
      filterRows('images', images, { ...emptyFilter, state: 'pinned' }).rows.map((r) => r.key),
    ).toEqual(['i2']);
    expect(
      filterRows('images', images, { ...emptyFilter, state: 'in use' }).rows.map((r) => r.key),
    ).toEqual(['i1', 'i3']);
  });
});

describe('isFiltered and namespacesOf', () => {
  it('knows an empty filter', () => {
    expect(isFiltered(emptyFilter)).toBe(false);
    expect(isFiltered({ ...emptyFilter, text: ' ' })).toBe(false);
    expect(isFiltered({ ...emptyFilter, podKey: 'x' })).toBe(true);
  });

  it('lists namespaces once, sorted', () => {
    expect(namespacesOf(pods)).toEqual(['default', 'payments']);
  });
});
