import { useMemo, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import { useModel, useNodes } from '../../app/context';
import type { AppModel } from '../../app/model';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState, NoMatchesState } from '../../ui/EmptyState';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatCount } from '../../ui/format';
import { useStoredSelection } from '../../ui/view/selection';
import { TableView } from '../../ui/view/TableView';
import { FilterField, Toolbar, ToolbarStatus } from '../../ui/view/Toolbar';
import { confirmRemove, openForwardDialog, runOnForwards, type BulkOperation } from './actions';
import { forwardColumns } from './columns';
import { filterRows, forwardRow, stateSummary, type ForwardRow } from './entries';
import { ForwardDetail } from './ForwardDetail';
import { forwardsOf, toggleChecked, type ForwardsState } from './store';

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

const bulkOperations: readonly {
  operation: BulkOperation;
  label: string;
  icon: 'play' | 'stop' | 'refresh';
}[] = [
  { operation: 'start', label: 'Start', icon: 'play' },
  { operation: 'stop', label: 'Stop', icon: 'stop' },
  { operation: 'restart', label: 'Restart', icon: 'refresh' },
];

function BulkBar({ rows }: { rows: readonly ForwardRow[] }) {
  const model = useModel();
  const feature = forwardsOf(model);
  const checked = useForwards((state) => state.checked);
  const chosen = rows.filter((row) => checked.has(row.key)).map((row) => row.entry);
  if (chosen.length === 0) return null;
  return (
    <div className="forward-bulk" role="group" aria-label="Selected forwards">
      <span>{chosen.length} selected</span>
      {bulkOperations.map(({ operation, label, icon }) => (
        <Button
          key={operation}
          small
          icon={icon}
          onClick={() => void runOnForwards(model, chosen, operation)}
        >
          {label}
        </Button>
      ))}
      <Button small icon="trash" onClick={() => confirmRemove(model, chosen)}>
        Remove
      </Button>
      <Button small variant="ghost" onClick={() => feature.store.setState({ checked: new Set() })}>
        Clear selection
      </Button>
    </div>
  );
}

function ForwardsToolbar({
  all,
  shown,
}: {
  all: readonly ForwardRow[];
  shown: readonly ForwardRow[];
}) {
  const model = useModel();
  const feature = forwardsOf(model);
  const filter = useForwards((state) => state.filter);
  const checked = useForwards((state) => state.checked);
  const allChecked = shown.length > 0 && shown.every((row) => checked.has(row.key));
  return (
    <Toolbar label="Filter forwards">
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
      <FilterField
        label="Filter forwards by text"
        placeholder="Filter forwards…"
        value={filter}
        onChange={(text) => feature.store.setState({ filter: text })}
      />
      <BulkBar rows={shown} />
      <ToolbarStatus>
        {shown.length === all.length
          ? stateSummary(all)
          : `${formatCount(shown.length)} of ${formatCount(all.length)} forwards`}
      </ToolbarStatus>
      <Button variant="primary" icon="plus" onClick={() => openForwardDialog(model)}>
        New forward…
      </Button>
    </Toolbar>
  );
}

function emptyState(model: AppModel, loaded: boolean, total: number) {
  if (!loaded) return <LoadingState>Reading the forwards…</LoadingState>;
  if (total > 0) return <NoMatchesState plural="forwards" hidden={formatCount(total)} />;
  return (
    <EmptyState
      icon="forward"
      title="No port forwards yet"
      actions={
        <>
          <Button variant="primary" icon="plus" onClick={() => openForwardDialog(model)}>
            New forward…
          </Button>
          <Button icon="pods" onClick={() => model.ui.getState().navigate('pods')}>
            Go to Pods
          </Button>
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
  const selection = useStoredSelection(feature.store);
  const selected = all.find((row) => row.key === selection.key);
  const onKeyDown = (event: KeyboardEvent): void => {
    if (selected === undefined) return;
    if (event.key === ' ') {
      event.preventDefault();
      toggleChecked(feature, selected.key);
    } else if (event.key === 'Delete') {
      event.preventDefault();
      confirmRemove(model, [selected.entry]);
    } else if (event.key === 'Escape') {
      selection.close();
    }
  };

  return (
    <TableView<ForwardRow>
      className="forwards-view"
      toolbar={<ForwardsToolbar all={all} shown={shown} />}
      banners={
        error !== undefined && (
          <ErrorBanner error={error} title="The forward list stopped updating" />
        )
      }
      label="Port forwards"
      rows={shown}
      columns={forwardColumns}
      selection={selection}
      onKeyDown={onKeyDown}
      empty={emptyState(model, loaded, all.length)}
      detail={selected !== undefined && <ForwardDetail row={selected} onClose={selection.close} />}
      detailPlacement="below"
    />
  );
}
