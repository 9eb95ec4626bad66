/** The port-forward table's columns: tick, name, pod, state, URLs, traffic, actions. */
import { memo, type MouseEvent } from 'react';
import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { Badge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { formatBytes, formatCount } from '../../ui/format';
import type { IconName } from '../../ui/icons';
import type { Column } from '../../ui/table/VirtualTable';
import { confirmRemove, openMoveDialog, runOnForwards } from './actions';
import {
  describeTarget,
  isRunning,
  notListeningText,
  stateTones,
  type ForwardRow,
} from './entries';
import { ForwardLink } from './ForwardLinks';
import { forwardsOf, toggleChecked } from './store';

const CheckCell = memo(function CheckCell({ row }: { row: ForwardRow }) {
  const feature = forwardsOf(useModel());
  const checked = useStore(feature.store, (state) => state.checked.has(row.key));
  return (
    <input
      type="checkbox"
      aria-label={`Select ${row.entry.name}`}
      checked={checked}
      onMouseDown={(event) => event.stopPropagation()}
      onChange={() => toggleChecked(feature, row.key)}
    />
  );
});

/** A forward's state, busy while it starts or reconnects. */
export function ForwardStateBadge({ row }: { row: ForwardRow }) {
  return (
    <Badge
      tone={stateTones[row.state]}
      busy={row.state === 'starting' || row.state === 'reconnecting'}
    >
      {row.state}
    </Badge>
  );
}

const StateCell = memo(function StateCell({ row }: { row: ForwardRow }) {
  return (
    <span className="forward-state" title={row.reason}>
      <ForwardStateBadge row={row} />
      <span className="cell-sub forward-reason">{row.reason}</span>
    </span>
  );
});

const RowActions = memo(function RowActions({ row }: { row: ForwardRow }) {
  const model = useModel();
  const pending = useStore(forwardsOf(model).store, (state) => state.pending[row.key]);
  const running = isRunning(row);
  const stop = (event: MouseEvent): void => event.stopPropagation();
  const icon = (label: string, name: IconName, run: () => void) => (
    <Button
      small
      variant="ghost"
      iconOnly
      icon={name}
      title={`${label} ${row.entry.name}`}
      aria-label={`${label} ${row.entry.name}`}
      disabled={pending !== undefined}
      onClick={run}
    />
  );
  return (
    <span className="forward-actions" onMouseDown={stop}>
      {row.entry.orphaned === true ? (
        // Its node is gone: starting it can only fail; moving it is what helps.
        <Button
          small
          title={`Move ${row.entry.name} to another node`}
          disabled={pending !== undefined}
          onClick={() => openMoveDialog(model, row.entry, row.nodeName)}
        >
          Move…
        </Button>
      ) : (
        <>
          {running
            ? icon('Stop', 'stop', () => void runOnForwards(model, [row.entry], 'stop'))
            : icon('Start', 'play', () => void runOnForwards(model, [row.entry], 'start'))}
          {icon('Restart', 'refresh', () => void runOnForwards(model, [row.entry], 'restart'))}
        </>
      )}
      {icon('Remove', 'trash', () => confirmRemove(model, [row.entry]))}
      {pending !== undefined && <span className="spinner" title={pending} />}
    </span>
  );
});

/** Bytes one way through a forward, right-aligned; gives way early when narrow. */
function trafficColumn(id: 'in' | 'out', header: string): Column<ForwardRow> {
  const key = id === 'in' ? 'bytesIn' : 'bytesOut';
  return {
    id,
    header,
    width: 84,
    align: 'end',
    priority: 4,
    render: (row) => formatBytes(row.entry.live?.metrics[key] ?? 0),
  };
}

export const forwardColumns: readonly Column<ForwardRow>[] = [
  {
    id: 'check',
    header: 'Select',
    headerHidden: true,
    width: 36,
    render: (row) => <CheckCell row={row} />,
  },
  {
    id: 'name',
    header: 'Name',
    width: 170,
    grow: 1.2,
    render: (row) => (
      <span title={`${row.entry.name} on ${row.nodeName}`}>
        <span className="cell-primary">{row.entry.name}</span>
        {row.entry.saved && (
          <span
            className="forward-saved"
            title={row.entry.autoStart ? 'Saved, starts with its node' : 'Saved'}
          >
            {row.entry.autoStart ? ' ★ auto' : ' ★'}
          </span>
        )}
      </span>
    ),
  },
  {
    id: 'pod',
    header: 'Pod',
    width: 150,
    grow: 1,
    priority: 3,
    render: (row) => (
      <span title={`${describeTarget(row.entry.spec.target)} on ${row.nodeName}`}>
        {describeTarget(row.entry.spec.target)}
        <span className="cell-sub"> · {row.nodeName}</span>
      </span>
    ),
  },
  {
    id: 'state',
    header: 'State',
    width: 190,
    grow: 1.2,
    render: (row) => <StateCell row={row} />,
  },
  {
    id: 'url',
    header: 'Local URL',
    width: 230,
    render: (row) =>
      row.urls.length === 0 ? (
        <span
          className="muted"
          title={row.entry.spec.ports
            .map(
              (port) =>
                `Pod port ${port.remotePort} → ${port.localPort === 0 ? 'a free local port' : `local port ${port.localPort}`}`,
            )
            .join('\n')}
        >
          {notListeningText(row.entry)}
        </span>
      ) : (
        <span className="forward-links">
          {row.urls.map((url) => (
            <ForwardLink key={url.href} url={url} />
          ))}
        </span>
      ),
  },
  {
    id: 'connections',
    header: 'Conns',
    width: 64,
    align: 'end',
    priority: 2,
    render: (row) => formatCount(row.entry.live?.metrics.openConnections ?? 0),
  },
  trafficColumn('in', 'In'),
  trafficColumn('out', 'Out'),
  {
    id: 'error',
    header: 'Last error',
    width: 150,
    grow: 1,
    priority: 1,
    render: (row) =>
      row.error === undefined ? (
        <span className="faint">—</span>
      ) : (
        <span
          className="forward-error"
          title={[row.error.message, row.error.hint, row.error.detail].filter(Boolean).join('\n')}
        >
          {row.error.message}
        </span>
      ),
  },
  {
    id: 'actions',
    header: 'Actions',
    headerHidden: true,
    width: 128,
    render: (row) => <RowActions row={row} />,
  },
];
