import { useEffect, useMemo, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState, NoMatchesState } from '../../ui/EmptyState';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatCount } from '../../ui/format';
import { useStoredSelection } from '../../ui/view/selection';
import { TableView } from '../../ui/view/TableView';
import {
  ClearFilters,
  FilterField,
  SelectFilter,
  Toolbar,
  ToolbarStatus,
  type FilterChoice,
} from '../../ui/view/Toolbar';
import { clearHistory, confirmKill } from './actions';
import { sessionColumns } from './columns';
import {
  emptySessionFilter,
  filterSessions,
  isFiltered,
  kindLabels,
  sessionKinds,
  sessionRows,
  type Liveness,
  type SessionFilter,
  type SessionRow,
} from './rows';
import { SessionDetail } from './SessionDetail';
import { sessionsOf, type SessionsState } from './store';

function useSessions<T>(selector: (state: SessionsState) => T): T {
  return useStore(sessionsOf(useModel()).store, selector);
}

const kindChoices: readonly FilterChoice<SessionFilter['kind']>[] = [
  { value: '', label: 'All kinds' },
  ...sessionKinds.map((kind) => ({ value: kind, label: kindLabels[kind] })),
];

const livenessChoices: readonly FilterChoice<Liveness>[] = [
  { value: 'all', label: 'Live and ended' },
  { value: 'live', label: 'Live only' },
  { value: 'ended', label: 'Ended only' },
];

function SessionsToolbar({ total, shown, ended }: { total: number; shown: number; ended: number }) {
  const model = useModel();
  const feature = sessionsOf(model);
  const filter = useSessions((state) => state.filter);
  const live = total - ended;
  return (
    <Toolbar label="Filter sessions">
      <FilterField
        label="Filter sessions by text"
        placeholder="Filter sessions…"
        value={filter.text}
        onChange={(text) => feature.setFilter({ text })}
      />
      <SelectFilter
        label="Kind"
        value={filter.kind}
        choices={kindChoices}
        onChange={(kind) => feature.setFilter({ kind })}
      />
      <SelectFilter
        label="Live or ended"
        value={filter.liveness}
        choices={livenessChoices}
        onChange={(liveness) => feature.setFilter({ liveness })}
      />
      {isFiltered(filter) && <ClearFilters onClear={() => feature.setFilter(emptySessionFilter)} />}
      <ToolbarStatus>
        {shown === total
          ? `${formatCount(live)} live, ${formatCount(ended)} ended`
          : `${formatCount(shown)} of ${formatCount(total)} sessions`}
      </ToolbarStatus>
      <Button
        icon="trash"
        disabled={ended === 0}
        title="Forget the ended sessions (the history keeps the latest 200)"
        onClick={() => void clearHistory(model)}
      >
        Clear history
      </Button>
    </Toolbar>
  );
}

/** Every session on every node, live first, then the recent history. */
export function SessionsView() {
  const model = useModel();
  const feature = sessionsOf(model);
  const sessions = useSessions((state) => state.sessions);
  const loaded = useSessions((state) => state.loaded);
  const error = useSessions((state) => state.error);
  const filter = useSessions((state) => state.filter);
  const all = useMemo(() => sessionRows(sessions), [sessions]);
  const shown = useMemo(() => filterSessions(all, filter), [all, filter]);
  const ended = all.filter((row) => !row.live).length;
  const selection = useStoredSelection(feature.store);
  const selected = all.find((row) => row.key === selection.key);

  // Opening the monitor shows the counters as they are now, not as of the last tick.
  useEffect(() => {
    feature.refresh();
  }, [feature]);

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') selection.close();
    if (event.key === 'Delete' && selected?.session.killable === true) {
      event.preventDefault();
      confirmKill(model, selected.session);
    }
  };

  const empty = !loaded ? (
    <LoadingState>Reading the sessions…</LoadingState>
  ) : all.length > 0 ? (
    <NoMatchesState plural="sessions" hidden={formatCount(all.length)} />
  ) : (
    <EmptyState icon="sessions" title="No sessions yet">
      Terminals, port forwards and followed logs show here while they run, with their traffic, and
      stay in the history once they end.
    </EmptyState>
  );

  return (
    <TableView<SessionRow>
      className="sessions-view"
      toolbar={<SessionsToolbar total={all.length} shown={shown.length} ended={ended} />}
      banners={
        error !== undefined && (
          <ErrorBanner error={error} title="The session list stopped updating" />
        )
      }
      label="Sessions"
      rows={shown}
      columns={sessionColumns}
      selection={selection}
      onKeyDown={onKeyDown}
      empty={empty}
      detail={
        selected !== undefined && (
          <SessionDetail session={selected.session} onClose={selection.close} />
        )
      }
      detailPlacement="below"
    />
  );
}
