/**
 * The columns more than one resource kind has, built once: a kind's own file lists its
 * columns from these and adds the few only it has.
 */
import { StateBadge } from '../../../ui/Badge';
import type { Column } from '../../../ui/table/VirtualTable';
import { NodeLabel } from '../../nodes/NodeLabel';
import { statsColumns } from '../../stats/columns';
import { Age } from '../cells';
import { shortId, type ContainerRow, type PodRow } from '../model';

/** Minimum width and share of the spare width: what differs between kinds' columns. */
type Size = Pick<Column<unknown>, 'width' | 'grow'>;

function nameColumn<Row extends { readonly name: string }>(size: Size): Column<Row> {
  return {
    id: 'name',
    header: 'Name',
    ...size,
    sortable: true,
    render: (row) => (
      <span className="cell-primary" title={row.name}>
        {row.name}
      </span>
    ),
  };
}

function namespaceColumn<Row extends { readonly namespace: string }>(size: Size): Column<Row> {
  return {
    id: 'namespace',
    priority: 35,
    header: 'Namespace',
    ...size,
    sortable: true,
    render: (row) => <span title={row.namespace}>{row.namespace}</span>,
  };
}

function stateColumn<Row extends { readonly state: string }>(): Column<Row> {
  return {
    id: 'state',
    header: 'State',
    width: 104,
    sortable: true,
    render: (row) => <StateBadge state={row.state} />,
  };
}

export function idColumn<Row extends { readonly id: string }>(): Column<Row> {
  return {
    id: 'id',
    priority: 10,
    header: 'ID',
    width: 124,
    sortable: true,
    render: (row) => (
      <span className="mono cell-sub" title={row.id}>
        {shortId(row.id)}
      </span>
    ),
  };
}

/** Attempt, age and id: the last columns of pods and containers alike. */
function lifecycleColumns<
  Row extends { readonly id: string; readonly attempt: number; readonly createdAt: number },
>(): readonly Column<Row>[] {
  return [
    {
      id: 'attempt',
      priority: 20,
      header: 'Attempt',
      width: 74,
      sortable: true,
      align: 'end',
      render: (row) => row.attempt,
    },
    {
      id: 'age',
      priority: 60,
      header: 'Age',
      width: 64,
      sortable: true,
      align: 'end',
      render: (row) => <Age since={row.createdAt} />,
    },
    idColumn<Row>(),
  ];
}

function nodeColumn<Row extends { readonly nodeId: string }>(): Column<Row> {
  return {
    id: 'node',
    priority: 38,
    header: 'Node',
    width: 128,
    grow: 1,
    sortable: true,
    resizable: true,
    render: (row) => <NodeLabel nodeId={row.nodeId} />,
  };
}

/**
 * A kind's columns without and with the Node column (shown when rows may come from
 * several nodes), placed before the last `beforeLast` columns. Built once per kind, so
 * the arrays are stable and memoised rows don't re-render when the view does.
 */
export function withAndWithoutNode<Row extends { readonly nodeId: string }>(
  columns: readonly Column<Row>[],
  beforeLast = 0,
): { readonly plain: readonly Column<Row>[]; readonly withNode: readonly Column<Row>[] } {
  const at = columns.length - beforeLast;
  return {
    plain: columns,
    withNode: [...columns.slice(0, at), nodeColumn<Row>(), ...columns.slice(at)],
  };
}

/**
 * A pod's or container's columns, in the order both tables share: name, namespace, state,
 * CPU and memory, the lifecycle columns last (the Node column before the id). A kind
 * names its sizes and slots in the few columns only it has.
 */
export function workloadColumns<Row extends PodRow | ContainerRow>(
  kind: 'pods' | 'containers',
  layout: {
    readonly name: Size;
    readonly namespace: Size;
    readonly afterName?: readonly Column<Row>[];
    readonly afterNamespace?: readonly Column<Row>[];
    readonly afterStats?: readonly Column<Row>[];
  },
): ReturnType<typeof withAndWithoutNode<Row>> {
  return withAndWithoutNode<Row>(
    [
      nameColumn<Row>(layout.name),
      ...(layout.afterName ?? []),
      namespaceColumn<Row>(layout.namespace),
      ...(layout.afterNamespace ?? []),
      stateColumn<Row>(),
      ...statsColumns<Row>(kind),
      ...(layout.afterStats ?? []),
      ...lifecycleColumns<Row>(),
    ],
    1,
  );
}
