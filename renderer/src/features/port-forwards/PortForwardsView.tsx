import { memo, useCallback, useMemo, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import { useStore } from 'zustand';
import { useModel, useNodes } from '../../app/context';
import type { AppModel } from '../../app/model';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatBytes, formatCount } from '../../ui/format';
import { Icon, type IconName } from '../../ui/icons';
import { VirtualTable, type Column, type VirtualTableHandle } from '../../ui/VirtualTable';
import {
  confirmRemove,
  openForwardDialog,
  openMoveDialog,
  runOnForwards,
  type BulkOperation,
} from './actions';
import {
  describeTarget,
  filterRows,
  forwardRow,
  isRunning,
  notListeningText,
  stateSummary,
  stateTones,
  type ForwardRow,
} from './entries';
import { ForwardDetail } from './ForwardDetail';
import { ForwardLink } from './ForwardLinks';
import { forwardsOf, type ForwardsFeature, type ForwardsState } from './store';

function useForwards<T>(selector: (state: ForwardsState) => T): T {
  return useStore(forwardsOf(useModel()).store, selector);
}

/** The table's rows: every forward with its node's name, filtered. */
function useRows(): { all: readonly ForwardRow[]; shown: readonly ForwardRow[] } {
  const forwards = useForwards((state) => state.forwards);
  const filter = useForwards((state) => state.filter);
  const nodes = useNodes((state) => state.nodes);
  const all = useMemo(() => {
    const names = new Map(nodes.map((node) => [node.nodeId, node.name]));
    return forwards.map((entry) => forwardRow(entry, names.get(entry.nodeId)));
  }, [forwards, nodes]);
  const shown = useMemo(() => filterRows(all, filter), [all, filter]);
  return { all, shown };
}

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

function toggleChecked(feature: ForwardsFeature, key: string): void {
  feature.store.setState((state) => {
    const checked = new Set(state.checked);
    if (!checked.delete(key)) checked.add(key);
    return { checked };
  });
}

export const ForwardStateBadge = memo(function ForwardStateBadge({ row }: { row: ForwardRow }) {
  const busy = row.state === 'starting' || row.state === 'reconnecting';
  return (
    <span className="forward-state" title={row.reason}>
      <Badge tone={stateTones[row.state]} busy={busy}>
        {row.state}
      </Badge>
      <span className="cell-sub forward-reason">{row.reason}</span>
    </span>
  );
});

const RowActions = memo(function RowActions({ row }: { row: ForwardRow }) {
  const model = useModel();
  const pending = useForwards((state) => state.pending[row.key]);
  const running = isRunning(row);
  const stop = (event: MouseEvent): void => event.stopPropagation();
  const icon = (label: string, name: IconName, run: () => void) => (
    <button
      type="button"
      className="btn btn-small btn-ghost btn-icon"
      title={`${label} ${row.entry.name}`}
      aria-label={`${label} ${row.entry.name}`}
      disabled={pending !== undefined}
      onClick={run}
    >
      <Icon name={name} size={14} />
    </button>
  );
  return (
    <span className="forward-actions" onMouseDown={stop}>
      {row.entry.orphaned === true ? (
        // Its node is gone: starting it can only fail; moving it is what helps.
        <button
          type="button"
          className="btn btn-small"
          title={`Move ${row.entry.name} to another node`}
          disabled={pending !== undefined}
          onClick={() => openMoveDialog(model, row.entry, row.nodeName)}
        >
          Move…
        </button>
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

const columns: readonly Column<ForwardRow>[] = [
  { id: 'check', header: '', width: 36, render: (row) => <CheckCell row={row} /> },
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
    render: (row) => <ForwardStateBadge row={row} />,
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
  {
    id: 'in',
    header: 'In',
    width: 84,
    align: 'end',
    priority: 4,
    render: (row) => formatBytes(row.entry.live?.metrics.bytesIn ?? 0),
  },
  {
    id: 'out',
    header: 'Out',
    width: 84,
    align: 'end',
    priority: 4,
    render: (row) => formatBytes(row.entry.live?.metrics.bytesOut ?? 0),
  },
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
  { id: 'actions', header: '', width: 128, render: (row) => <RowActions row={row} /> },
];

function BulkBar({ rows }: { rows: readonly ForwardRow[] }) {
  const model = useModel();
  const feature = forwardsOf(model);
  const checked = useForwards((state) => state.checked);
  const chosen = rows.filter((row) => checked.has(row.key));
  if (chosen.length === 0) return null;
  const run = (operation: BulkOperation): void =>
    void runOnForwards(
      model,
      chosen.map((row) => row.entry),
      operation,
    );
  return (
    <div className="forward-bulk" role="group" aria-label="Selected forwards">
      <span>{chosen.length} selected</span>
      <button type="button" className="btn btn-small" onClick={() => run('start')}>
        <Icon name="play" size={14} />
        Start
      </button>
      <button type="button" className="btn btn-small" onClick={() => run('stop')}>
        <Icon name="stop" size={14} />
        Stop
      </button>
      <button type="button" className="btn btn-small" onClick={() => run('restart')}>
        <Icon name="refresh" size={14} />
        Restart
      </button>
      <button
        type="button"
        className="btn btn-small"
        onClick={() =>
          confirmRemove(
            model,
            chosen.map((row) => row.entry),
          )
        }
      >
        <Icon name="trash" size={14} />
        Remove
      </button>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        onClick={() => feature.store.setState({ checked: new Set() })}
      >
        Clear selection
      </button>
    </div>
  );
}

function Toolbar({ all, shown }: { all: readonly ForwardRow[]; shown: readonly ForwardRow[] }) {
  const model = useModel();
  const feature = forwardsOf(model);
  const filter = useForwards((state) => state.filter);
  const checked = useForwards((state) => state.checked);
  const allChecked = shown.length > 0 && shown.every((row) => checked.has(row.key));
  return (
    <div className="toolbar" role="search" aria-label="Filter forwards">
      <label className="checkbox forward-check-all" title="Select every forward shown">
        <input
          type="checkbox"
          aria-label="Select all forwards"
          checked={allChecked}
          disabled={shown.length === 0}
          onChange={() =>
            feature.store.setState({
              checked: allChecked ? new Set() : new Set(shown.map((row) => row.key)),
            })
          }
        />
      </label>
      <div className="search-field">
        <Icon name="search" size={14} />
        <input
          className="input"
          type="search"
          placeholder="Filter forwards…"
          aria-label="Filter forwards by text"
          spellCheck={false}
          value={filter}
          onChange={(event) => feature.store.setState({ filter: event.target.value })}
        />
      </div>
      <BulkBar rows={shown} />
      <span className="toolbar-spacer" />
      <span className="toolbar-status" aria-live="polite">
        {shown.length === all.length
          ? stateSummary(all)
          : `${formatCount(shown.length)} of ${formatCount(all.length)} forwards`}
      </span>
      <button type="button" className="btn btn-primary" onClick={() => openForwardDialog(model)}>
        <Icon name="plus" size={14} />
        New forward…
      </button>
    </div>
  );
}

function emptyState(model: AppModel, loaded: boolean, total: number) {
  if (!loaded) {
    return (
      <div className="empty-state" role="status">
        <span className="spinner" />
        Reading the forwards…
      </div>
    );
  }
  if (total > 0) {
    return (
      <EmptyState icon="search" title="No forwards match the filter">
        {formatCount(total)} hidden by the filter.
      </EmptyState>
    );
  }
  return (
    <EmptyState
      icon="forward"
      title="No port forwards yet"
      actions={
        <>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => openForwardDialog(model)}
          >
            <Icon name="plus" size={14} />
            New forward…
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => model.ui.getState().navigate('pods')}
          >
            <Icon name="pods" size={14} />
            Go to Pods
          </button>
        </>
      }
    >
      Forward a pod&apos;s port to this machine: pick &quot;Forward port…&quot; on a pod, or start
      one here. Forwards listen on this machine only unless you ask otherwise.
    </EmptyState>
  );
}

/** Every forward of every node: state as it changes, URLs, traffic, and actions on one or many. */
export function PortForwardsView() {
  const model = useModel();
  const feature = forwardsOf(model);
  const { all, shown } = useRows();
  const loaded = useForwards((state) => state.loaded);
  const error = useForwards((state) => state.error);
  const selectedKey = useForwards((state) => state.selectedKey);
  const table = useRef<VirtualTableHandle>(null);
  const selected = all.find((row) => row.key === selectedKey);

  const select = useCallback(
    (key: string) => feature.store.setState({ selectedKey: key }),
    [feature],
  );
  const onKeyDown = (event: KeyboardEvent): void => {
    if (selectedKey === undefined) return;
    const row = all.find((candidate) => candidate.key === selectedKey);
    if (row === undefined) return;
    if (event.key === ' ') {
      event.preventDefault();
      toggleChecked(feature, row.key);
    } else if (event.key === 'Delete') {
      event.preventDefault();
      confirmRemove(model, [row.entry]);
    } else if (event.key === 'Escape') {
      feature.store.setState({ selectedKey: undefined });
    }
  };

  return (
    <div className="view forwards-view">
      <Toolbar all={all} shown={shown} />
      {error !== undefined && (
        <ErrorBanner error={error} title="The forward list stopped updating" />
      )}
      <div className="forwards-body">
        <div className="forwards-table">
          <VirtualTable<ForwardRow>
            label="Port forwards"
            rows={shown}
            columns={columns}
            selectedKey={selectedKey}
            onSelect={select}
            onActivate={select}
            onKeyDown={onKeyDown}
            handle={table}
            empty={emptyState(model, loaded, all.length)}
          />
        </div>
        {selected !== undefined && (
          <ForwardDetail
            row={selected}
            onClose={() => feature.store.setState({ selectedKey: undefined })}
          />
        )}
      </div>
    </div>
  );
}
