import { useEffect, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import type { DebugStatus } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { Badge, StateBadge, type Tone } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState } from '../../ui/EmptyState';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatCount } from '../../ui/format';
import type { Column } from '../../ui/table/VirtualTable';
import { Prop, Props } from '../../ui/view/detail-parts';
import { DetailPane } from '../../ui/view/DetailPane';
import { useStoredSelection } from '../../ui/view/selection';
import { TableView } from '../../ui/view/TableView';
import { Toolbar, ToolbarStatus } from '../../ui/view/Toolbar';
import { openDebugShell, removeDebug, setKept } from './actions';
import { debugOf, type DebugRow } from './store';

const statuses: Readonly<Record<DebugStatus, { label: string; tone: Tone; title: string }>> = {
  active: {
    label: 'in use',
    tone: 'ok',
    title: 'Removed when its last terminal closes.',
  },
  kept: { label: 'kept', tone: 'info', title: 'Kept past its terminals: remove it when done.' },
  leftover: {
    label: 'left over',
    tone: 'warn',
    title: 'No running Porthole owns it (a crash, or a node that went away): remove it.',
  },
};

export function DebugStatusBadge({ status }: { status: DebugStatus }) {
  const { label, tone, title } = statuses[status];
  return (
    <Badge tone={tone} title={title}>
      {label}
    </Badge>
  );
}

const columns: readonly Column<DebugRow>[] = [
  {
    id: 'name',
    header: 'Debug container',
    width: 150,
    grow: 1,
    render: (row) => row.containerName,
  },
  { id: 'target', header: 'Target', width: 120, grow: 1, render: (row) => row.targetName },
  {
    id: 'pod',
    header: 'Pod',
    width: 140,
    grow: 1,
    priority: 2,
    render: (row) => row.podName ?? '—',
  },
  { id: 'image', header: 'Image', width: 160, grow: 1, priority: 1, render: (row) => row.image },
  { id: 'state', header: 'State', width: 90, render: (row) => <StateBadge state={row.state} /> },
  {
    id: 'status',
    header: 'Porthole',
    width: 90,
    render: (row) => <DebugStatusBadge status={row.status} />,
  },
  { id: 'node', header: 'Node', width: 110, priority: 3, render: (row) => row.nodeName },
];

function DebugDetail({ row, onClose }: { row: DebugRow; onClose: () => void }) {
  const model = useModel();
  return (
    <DetailPane
      placement="below"
      className="debug-detail"
      label={`Debug container ${row.containerName}`}
      title={row.containerName}
      status={<DebugStatusBadge status={row.status} />}
      reason={statuses[row.status].title}
      onClose={onClose}
      actions={
        <>
          <Button
            small
            icon="terminal"
            disabled={row.state !== 'running'}
            onClick={() => openDebugShell(model, row)}
          >
            Open a shell
          </Button>
          <Button small onClick={() => void setKept(model, row, row.status !== 'kept')}>
            {row.status === 'kept' ? 'Don’t keep' : 'Keep'}
          </Button>
          <Button
            small
            variant="danger"
            icon="trash"
            onClick={() => void removeDebug(model, [row])}
          >
            Remove
          </Button>
        </>
      }
    >
      <div className="debug-detail-body">
        <Props>
          <Prop label="Target">{row.targetName}</Prop>
          <Prop label="Pod">{row.podName ?? '—'}</Prop>
          <Prop label="Image" className="mono">
            {row.image}
          </Prop>
          <Prop label="Node">{row.nodeName}</Prop>
          <Prop label="Id" className="mono">
            {row.containerId.slice(0, 12)}
          </Prop>
        </Props>
      </div>
    </DetailPane>
  );
}

/** Every debug container on the connected nodes: in use, kept, or left over. */
export function DebugView() {
  const model = useModel();
  const feature = debugOf(model);
  const rows = useStore(feature.store, (state) => state.rows);
  const loaded = useStore(feature.store, (state) => state.loaded);
  const errors = useStore(feature.store, (state) => state.errors);
  const selection = useStoredSelection(feature.store);
  const selected = rows.find((row) => row.key === selection.key);
  const leftovers = rows.filter((row) => row.status === 'leftover');

  useEffect(() => {
    void feature.refresh();
  }, [feature]);

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') selection.close();
  };

  return (
    <TableView<DebugRow>
      className="debug-view"
      toolbar={
        <Toolbar label="Debug containers">
          <ToolbarStatus>
            {`${formatCount(rows.length)} debug container${rows.length === 1 ? '' : 's'}`}
          </ToolbarStatus>
          <Button icon="refresh" onClick={() => void feature.refresh()}>
            Refresh
          </Button>
          <Button
            icon="trash"
            disabled={leftovers.length === 0}
            onClick={() => void removeDebug(model, leftovers)}
          >
            Remove leftovers
          </Button>
        </Toolbar>
      }
      banners={errors.map(({ nodeName, error }) => (
        <ErrorBanner key={nodeName} error={error} title={`Debug containers of ${nodeName}`} />
      ))}
      label="Debug containers"
      rows={rows}
      columns={columns}
      selection={selection}
      onKeyDown={onKeyDown}
      empty={
        !loaded ? (
          <LoadingState>Looking for debug containers…</LoadingState>
        ) : (
          <EmptyState icon="search" title="No debug containers">
            Debug… on a running container (or a terminal that found no shell) starts a toolbox
            beside it. Kept and left-over ones show here to be removed.
          </EmptyState>
        )
      }
      detail={selected !== undefined && <DebugDetail row={selected} onClose={selection.close} />}
      detailPlacement="below"
    />
  );
}
