/** The session monitor's columns: state, kind, node, target, transport, timing, traffic. */
import { memo } from 'react';
import type { SessionSnapshot } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { Badge } from '../../ui/Badge';
import { useNow } from '../../ui/clock';
import { formatBytes } from '../../ui/format';
import { Icon, type IconName } from '../../ui/icons';
import { Sparkline } from '../../ui/Sparkline';
import type { Column } from '../../ui/table/VirtualTable';
import { NodeLabel } from '../nodes/NodeLabel';
import { confirmKill } from './actions';
import {
  describeAttempt,
  describeTransport,
  fellBack,
  formatDuration,
  kindLabels,
  outcomeOf,
  sessionStateTones,
  type SessionRow,
} from './rows';

const kindIcons: Readonly<Record<SessionSnapshot['kind'], IconName>> = {
  exec: 'terminal',
  attach: 'terminal',
  'port-forward': 'forward',
  logs: 'logs',
  transfer: 'file',
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

/** A session's state, busy while it starts or reconnects. */
export function SessionStateBadge({
  session,
  title,
}: {
  session: SessionSnapshot;
  title?: string;
}) {
  return (
    <Badge
      tone={sessionStateTones[session.state]}
      busy={session.state === 'starting' || session.state === 'reconnecting'}
      title={title}
    >
      {session.state}
    </Badge>
  );
}

/** Bytes one way, right-aligned. */
function trafficColumn(id: 'in' | 'out', header: string): Column<SessionRow> {
  return {
    id,
    header,
    width: 84,
    align: 'end',
    render: ({ session }) => formatBytes(id === 'in' ? session.bytesIn : session.bytesOut),
  };
}

export const sessionColumns: readonly Column<SessionRow>[] = [
  {
    id: 'state',
    header: 'State',
    width: 96,
    render: ({ session }) => <SessionStateBadge session={session} title={session.stateReason} />,
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
  trafficColumn('in', 'In'),
  trafficColumn('out', 'Out'),
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
    header: 'Actions',
    headerHidden: true,
    width: 80,
    render: ({ session }) => <KillButton session={session} />,
  },
];
