import { Badge, StateBadge } from '../../ui/Badge';
import { formatBytes, plural } from '../../ui/format';
import type { Column } from '../../ui/VirtualTable';
import { NodeLabel } from '../nodes/NodeLabel';
import { statsColumns } from '../stats/columns';
import { Age, PodLink } from './cells';
import {
  shortId,
  type ContainerRow,
  type ImageRow,
  type PodRow,
  type ResourceKind,
  type RowsByKind,
} from './model';

const nodeColumn = <Row extends { readonly nodeId: string }>(): Column<Row> => ({
  id: 'node',
  priority: 38,
  header: 'Node',
  width: 128,
  grow: 1,
  sortable: true,
  resizable: true,
  render: (row) => <NodeLabel nodeId={row.nodeId} />,
});

/** Attempt, age and id: the last columns of pods and containers alike. */
function lifecycleColumns<Row extends PodRow | ContainerRow>(): readonly Column<Row>[] {
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
    {
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
    },
  ];
}

const podColumns: readonly Column<PodRow>[] = [
  {
    id: 'name',
    header: 'Name',
    width: 160,
    grow: 2.2,
    sortable: true,
    render: (row) => (
      <span className="cell-primary" title={row.name}>
        {row.name}
      </span>
    ),
  },
  {
    id: 'namespace',
    priority: 35,
    header: 'Namespace',
    width: 100,
    grow: 1.2,
    sortable: true,
    render: (row) => <span title={row.namespace}>{row.namespace}</span>,
  },
  {
    id: 'state',
    header: 'State',
    width: 104,
    sortable: true,
    render: (row) => <StateBadge state={row.state} />,
  },
  ...statsColumns<PodRow>('pods'),
  {
    id: 'containers',
    priority: 50,
    header: 'Containers',
    width: 94,
    sortable: true,
    align: 'end',
    render: (row) => (
      <span title={`${row.runningCount} running of ${row.containerCount}`}>
        {row.runningCount}/{row.containerCount}
      </span>
    ),
  },
  ...lifecycleColumns<PodRow>(),
];

const containerColumns: readonly Column<ContainerRow>[] = [
  {
    id: 'name',
    header: 'Name',
    width: 130,
    grow: 1.6,
    sortable: true,
    render: (row) => (
      <span className="cell-primary" title={row.name}>
        {row.name}
      </span>
    ),
  },
  {
    id: 'pod',
    priority: 45,
    header: 'Pod',
    width: 130,
    grow: 1.6,
    sortable: true,
    render: (row) => <PodLink podKey={row.podKey} name={row.podName} />,
  },
  {
    id: 'namespace',
    priority: 35,
    header: 'Namespace',
    width: 90,
    grow: 1,
    sortable: true,
    render: (row) => <span title={row.namespace}>{row.namespace}</span>,
  },
  {
    id: 'image',
    priority: 40,
    header: 'Image',
    width: 140,
    grow: 1.8,
    sortable: true,
    render: (row) => (
      <span className="cell-sub" title={row.image}>
        {row.image}
      </span>
    ),
  },
  {
    id: 'state',
    header: 'State',
    width: 104,
    sortable: true,
    render: (row) => <StateBadge state={row.state} />,
  },
  ...statsColumns<ContainerRow>('containers'),
  ...lifecycleColumns<ContainerRow>(),
];

const imageColumns: readonly Column<ImageRow>[] = [
  {
    id: 'name',
    header: 'Image',
    width: 220,
    grow: 3,
    sortable: true,
    render: (row) => (
      <span className="cell-primary" title={[...row.repoTags, ...row.repoDigests].join('\n')}>
        {row.displayName}
        {row.repoTags.length > 1 && <span className="faint"> +{row.repoTags.length - 1}</span>}
      </span>
    ),
  },
  {
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
  },
  {
    id: 'size',
    priority: 50,
    header: 'Size',
    width: 92,
    sortable: true,
    align: 'end',
    render: (row) => formatBytes(row.sizeBytes),
  },
  {
    id: 'used',
    priority: 40,
    header: 'In use',
    width: 140,
    sortable: true,
    render: (row) => {
      if (row.usedBy + row.sandboxes === 0) return <span className="faint">unused</span>;
      // The pause image: every pod sandbox runs from it, though no container names it.
      const users = [
        row.usedBy > 0 && plural(row.usedBy, 'container'),
        row.sandboxes > 0 && plural(row.sandboxes, 'pod sandbox', 'pod sandboxes'),
      ].filter((text): text is string => text !== false);
      return (
        <Badge tone="ok" title={`In use by ${users.join(' and ')}`}>
          {users.join(', ')}
        </Badge>
      );
    },
  },
  {
    id: 'pinned',
    priority: 20,
    header: 'Pinned',
    width: 86,
    render: (row) =>
      row.pinned ? (
        <Badge tone="info" plain>
          pinned
        </Badge>
      ) : null,
  },
];

const byKind: { readonly [K in ResourceKind]: readonly Column<RowsByKind[K]>[] } = {
  pods: podColumns,
  containers: containerColumns,
  images: imageColumns,
};

const withNode = {
  pods: [...podColumns.slice(0, -1), nodeColumn<PodRow>(), ...podColumns.slice(-1)],
  containers: [
    ...containerColumns.slice(0, -1),
    nodeColumn<ContainerRow>(),
    ...containerColumns.slice(-1),
  ],
  images: [...imageColumns, nodeColumn<ImageRow>()],
} as const satisfies { readonly [K in ResourceKind]: readonly Column<RowsByKind[K]>[] };

/**
 * The columns of a table; the Node column only when rows may come from several nodes.
 * Returns stable arrays, so memoised rows don't re-render when the view does.
 */
export function columnsFor<K extends ResourceKind>(
  kind: K,
  showNode: boolean,
): readonly Column<RowsByKind[K]>[] {
  return (showNode ? withNode[kind] : byKind[kind]) as readonly Column<RowsByKind[K]>[];
}
