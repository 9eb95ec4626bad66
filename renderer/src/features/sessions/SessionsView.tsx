import { memo, useCallback, useEffect, useMemo, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import type { SessionSnapshot } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { Badge } from '../../ui/Badge';
import { useNow } from '../../ui/clock';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatBytes, formatCount } from '../../ui/format';
import { Icon, type IconName } from '../../ui/icons';
import { Sparkline } from '../../ui/Sparkline';
import { NodeLabel } from '../nodes/NodeLabel';
import { VirtualTable, type Column } from '../../ui/VirtualTable';
import { clearHistory, confirmKill } from './actions';
import {
  describeAttempt,
  describeTransport,
  fellBack,
  filterSessions,
  formatDuration,
  isFiltered,
  kindLabels,
  outcomeOf,
  sessionKinds,
  sessionRows,
  sessionStateTones,
  type Liveness,
  type SessionRow,
} from './rows';
import { SessionDetail } from './SessionDetail';
import { sessionsOf, type SessionsState } from './store';

function useSessions<T>(selector: (state: SessionsState) => T): T {
  return useStore(sessionsOf(useModel()).store, selector);
}

const kindIcons: Readonly<Record<SessionSnapshot['kind'], IconName>> = {
  exec: 'terminal',
  attach: 'terminal',
  'port-forward': 'forward',
  logs: 'logs',
};

const timeFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  // 13:45:07, not 01:45:07 PM: narrower, and unambiguous in a column.
  hourCycle: 'h23',
});

/** How long it ran: ticking while it is live. */
const Duration = memo(function Duration({ session }: { session: SessionSnapshot }) {
  const now = useNow();
  return <>{formatDuration((session.endedAt ?? now) - session.startedAt)}</>;
});

/** "3s ago" since the last byte (or the start). */
const Activity = memo(function Activity({ at, live }: { at: number; live: boolean }) {
  const now = useNow();
  return (
    <span title={new Date(at).toLocaleString()}>
      {live ? `${formatDuration(now - at)} ago` : timeFormat.format(at)}
    </span>
  );
});

function rateOf(session: SessionSnapshot): number {
  return session.throughput[session.throughput.length - 1] ?? 0;
}

const KillButton = memo(function KillButton({ session }: { session: SessionSnapshot }) {
  const model = useModel();
  if (!session.killable) return null;
  return (
    <button
      type="button"
      className="btn btn-small btn-danger-ghost"
      aria-label={`Kill ${kindLabels[session.kind]} session ${session.target.description}`}
      title="Kill this session…"
      onMouseDown={(event) => event.stopPropagation()}
      onClick={() => confirmKill(model, session)}
    >
      <Icon name="close" size={14} />
      Kill
    </button>
  );
});

const columns: readonly Column<SessionRow>[] = [
  {
    id: 'state',
    header: 'State',
    width: 96,
    render: ({ session }) => (
      <Badge
        tone={sessionStateTones[session.state]}
        busy={session.state === 'starting' || session.state === 'reconnecting'}
        title={session.stateReason}
      >
        {session.state}
      </Badge>
    ),
  },
  {
    id: 'kind',
    header: 'Kind',
    width: 124,
    render: ({ session }) => (
      <span className="session-kind">
        <Icon name={kindIcons[session.kind]} size={14} />
        {kindLabels[session.kind]}
      </span>
    ),
  },
  {
    id: 'node',
    header: 'Node',
    width: 128,
    priority: 6,
    resizable: true,
    render: ({ session }) => <NodeLabel nodeId={session.nodeId} fallback={session.nodeName} />,
  },
  {
    id: 'target',
    header: 'Target',
    width: 160,
    grow: 1.4,
    render: ({ session }) => (
      <span title={[session.target.description, session.detail].filter(Boolean).join('\n')}>
        <span className="cell-primary">{session.target.description}</span>
        {session.detail !== undefined && <span className="cell-sub mono"> {session.detail}</span>}
      </span>
    ),
  },
  {
    id: 'transport',
    header: 'Transport',
    width: 160,
    priority: 5,
    render: ({ session }) => (
      <span
        title={
          session.attempts.length === 0
            ? undefined
            : `Attempts:\n${session.attempts.map(describeAttempt).join('\n')}`
        }
      >
        {describeTransport(session)}
        {fellBack(session) && (
          <span className="badge warn plain session-fallback" aria-label="after a fallback">
            fallback
          </span>
        )}
        {session.limitation !== undefined && (
          <span
            className="badge warn plain session-fallback"
            title={session.limitation}
            aria-label={`limited: ${session.limitation}`}
          >
            limited
          </span>
        )}
      </span>
    ),
  },
  {
    id: 'started',
    header: 'Started',
    width: 84,
    priority: 2,
    render: ({ session }) => (
      <time dateTime={new Date(session.startedAt).toISOString()}>
        {timeFormat.format(session.startedAt)}
      </time>
    ),
  },
  {
    id: 'duration',
    header: 'Duration',
    width: 72,
    align: 'end',
    render: ({ session }) => <Duration session={session} />,
  },
  {
    id: 'in',
    header: 'In',
    width: 84,
    align: 'end',
    render: ({ session }) => formatBytes(session.bytesIn),
  },
  {
    id: 'out',
    header: 'Out',
    width: 84,
    align: 'end',
    render: ({ session }) => formatBytes(session.bytesOut),
  },
  {
    id: 'throughput',
    header: 'Throughput',
    width: 150,
    render: ({ session, live }) => (
      <span className="session-throughput" title={`${formatBytes(rateOf(session))}/s now`}>
        <Sparkline values={session.throughput} width={48} label="Bytes per second, last minute" />
        {live && <span className="cell-sub">{formatBytes(rateOf(session))}/s</span>}
      </span>
    ),
  },
  {
    id: 'activity',
    header: 'Activity',
    width: 100,
    priority: 1,
    render: ({ session, live }) => <Activity at={session.lastActivityAt} live={live} />,
  },
  {
    id: 'outcome',
    header: 'Exit / reason',
    width: 130,
    priority: 4,
    grow: 1,
    render: ({ session }) => {
      const outcome = outcomeOf(session);
      return (
        <span
          className={session.state === 'failed' ? 'session-failed' : undefined}
          title={[outcome, session.error?.hint, session.error?.detail].filter(Boolean).join('\n')}
        >
          {outcome}
        </span>
      );
    },
  },
  {
    id: 'kill',
    header: '',
    width: 80,
    render: ({ session }) => <KillButton session={session} />,
  },
];

function Toolbar({ total, shown, ended }: { total: number; shown: number; ended: number }) {
  const model = useModel();
  const feature = sessionsOf(model);
  const filter = useSessions((state) => state.filter);
  const live = total - ended;
  return (
    <div className="toolbar" role="search" aria-label="Filter sessions">
      <div className="search-field">
        <Icon name="search" size={14} />
        <input
          className="input"
          type="search"
          placeholder="Filter sessions…"
          aria-label="Filter sessions by text"
          spellCheck={false}
          value={filter.text}
          onChange={(event) => feature.setFilter({ text: event.target.value })}
        />
      </div>
      <select
        className="select"
        aria-label="Kind"
        value={filter.kind}
        onChange={(event) => feature.setFilter({ kind: event.target.value as typeof filter.kind })}
      >
        <option value="">All kinds</option>
        {sessionKinds.map((kind) => (
          <option key={kind} value={kind}>
            {kindLabels[kind]}
          </option>
        ))}
      </select>
      <select
        className="select"
        aria-label="Live or ended"
        value={filter.liveness}
        onChange={(event) => feature.setFilter({ liveness: event.target.value as Liveness })}
      >
        <option value="all">Live and ended</option>
        <option value="live">Live only</option>
        <option value="ended">Ended only</option>
      </select>
      {isFiltered(filter) && (
        <button
          type="button"
          className="btn btn-small btn-ghost"
          onClick={() => feature.setFilter({ text: '', kind: '', liveness: 'all' })}
        >
          Clear
        </button>
      )}
      <span className="toolbar-spacer" />
      <span className="toolbar-status" aria-live="polite">
        {shown === total
          ? `${formatCount(live)} live, ${formatCount(ended)} ended`
          : `${formatCount(shown)} of ${formatCount(total)} sessions`}
      </span>
      <button
        type="button"
        className="btn"
        disabled={ended === 0}
        title="Forget the ended sessions (the history keeps the latest 200)"
        onClick={() => void clearHistory(model)}
      >
        <Icon name="trash" size={14} />
        Clear history
      </button>
    </div>
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
  const selectedKey = useSessions((state) => state.selectedKey);
  const all = useMemo(() => sessionRows(sessions), [sessions]);
  const shown = useMemo(() => filterSessions(all, filter), [all, filter]);
  const ended = all.filter((row) => !row.live).length;
  const selected = all.find((row) => row.key === selectedKey);

  // Opening the monitor shows the counters as they are now, not as of the last tick.
  useEffect(() => {
    feature.refresh();
  }, [feature]);

  const select = useCallback(
    (key: string) => feature.store.setState({ selectedKey: key }),
    [feature],
  );
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') feature.store.setState({ selectedKey: undefined });
    if (event.key === 'Delete' && selected?.session.killable === true) {
      event.preventDefault();
      confirmKill(model, selected.session);
    }
  };

  const empty = !loaded ? (
    <div className="empty-state" role="status">
      <span className="spinner" />
      Reading the sessions…
    </div>
  ) : all.length > 0 ? (
    <EmptyState icon="search" title="No sessions match the filter">
      {formatCount(all.length)} hidden by the filter.
    </EmptyState>
  ) : (
    <EmptyState icon="sessions" title="No sessions yet">
      Terminals, port forwards and followed logs show here while they run, with their traffic, and
      stay in the history once they end.
    </EmptyState>
  );

  return (
    <div className="view sessions-view">
      <Toolbar total={all.length} shown={shown.length} ended={ended} />
      {error !== undefined && (
        <ErrorBanner error={error} title="The session list stopped updating" />
      )}
      <div className="sessions-body">
        <div className="sessions-table">
          <VirtualTable<SessionRow>
            label="Sessions"
            rows={shown}
            columns={columns}
            selectedKey={selectedKey}
            onSelect={select}
            onActivate={select}
            onKeyDown={onKeyDown}
            empty={empty}
          />
        </div>
        {selected !== undefined && (
          <SessionDetail
            session={selected.session}
            onClose={() => feature.store.setState({ selectedKey: undefined })}
          />
        )}
      </div>
    </div>
  );
}
