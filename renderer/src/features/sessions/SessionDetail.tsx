import type { SessionSnapshot } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { Badge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { useNow } from '../../ui/clock';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { formatBytes } from '../../ui/format';
import { Sparkline } from '../../ui/Sparkline';
import { StaticTable, type StaticColumn } from '../../ui/table/StaticTable';
import { DetailColumn, DetailColumns, Prop, Props } from '../../ui/view/detail-parts';
import { DetailPane } from '../../ui/view/DetailPane';
import { confirmKill } from './actions';
import { SessionStateBadge } from './columns';
import { describeTransport, formatDuration, isLive, kindLabels } from './rows';

type Attempt = SessionSnapshot['attempts'][number];

const attemptColumns: readonly StaticColumn<Attempt>[] = [
  { header: 'Transport', render: (attempt) => attempt.transport },
  {
    header: 'Outcome',
    render: (attempt) => (
      <Badge
        tone={attempt.outcome === 'ok' ? 'ok' : attempt.outcome === 'refused' ? 'warn' : 'danger'}
      >
        {attempt.outcome}
      </Badge>
    ),
  },
  { header: 'Status', render: (attempt) => attempt.status ?? '—' },
  {
    header: 'Took',
    render: (attempt) => (attempt.durationMs > 0 ? `${Math.round(attempt.durationMs)} ms` : '—'),
  },
  {
    header: 'Protocols offered',
    mono: true,
    render: (attempt) => attempt.protocolsOffered?.join(', ') ?? '—',
  },
  { header: 'Message', render: (attempt) => attempt.message ?? '' },
];

function Attempts({ session }: { session: SessionSnapshot }) {
  if (session.attempts.length === 0) {
    return <p className="faint">No stream attempts reported.</p>;
  }
  return (
    <StaticTable
      label="Attempts"
      className="detail-table session-attempts"
      columns={attemptColumns}
      rows={session.attempts}
      rowKey={(_attempt, index) => index}
    />
  );
}

/** What a session's `detail` is: the forwarded ports, the log file, the command, or what moves. */
const detailLabels: Readonly<Record<SessionSnapshot['kind'], string>> = {
  'port-forward': 'Ports',
  logs: 'File',
  exec: 'Command',
  attach: 'Command',
  transfer: 'Transfer',
};

/** One session in full, under the table: ids, timings, attempts, traffic, how it ended. */
export function SessionDetail({
  session,
  onClose,
}: {
  session: SessionSnapshot;
  onClose: () => void;
}) {
  const model = useModel();
  const now = useNow();
  const live = isLive(session);
  const target = session.target;
  return (
    <DetailPane
      placement="below"
      className="session-detail"
      label="Session details"
      title={`${kindLabels[session.kind]} · ${target.description}`}
      status={<SessionStateBadge session={session} />}
      reason={session.stateReason}
      actions={
        session.killable && (
          <Button small variant="danger" onClick={() => confirmKill(model, session)}>
            Kill…
          </Button>
        )
      }
      onClose={onClose}
    >
      <DetailColumns className="session-detail-body">
        <Props>
          <Prop label="Node">{session.nodeName}</Prop>
          {session.detail !== undefined && (
            <Prop label={detailLabels[session.kind]} className="mono">
              {session.detail}
            </Prop>
          )}
          {target.podSandboxId !== undefined && (
            <Prop label="Pod" className="mono" title={target.podSandboxId}>
              {target.namespace !== undefined && target.podName !== undefined
                ? `${target.namespace}/${target.podName} · `
                : ''}
              {target.podSandboxId.slice(0, 13)}
            </Prop>
          )}
          {target.containerId !== undefined && (
            <Prop label="Container" className="mono" title={target.containerId}>
              {target.containerName ?? ''} {target.containerId.slice(0, 13)}
            </Prop>
          )}
          <Prop label="Transport">{describeTransport(session)}</Prop>
          <Prop label="Started">{new Date(session.startedAt).toLocaleString()}</Prop>
          {session.endedAt !== undefined && (
            <Prop label="Ended">{new Date(session.endedAt).toLocaleString()}</Prop>
          )}
          <Prop label="Duration">
            {formatDuration((session.endedAt ?? now) - session.startedAt)}
          </Prop>
          <Prop label="Traffic">
            {formatBytes(session.bytesIn)} in · {formatBytes(session.bytesOut)} out
          </Prop>
          <Prop label="Exit code" when={session.exitCode !== undefined}>
            {session.exitCode}
          </Prop>
          <Prop label="Session id" className="mono faint">
            {session.id}
          </Prop>
        </Props>
        <DetailColumn>
          <h3 className="section-title">Throughput{live ? ', last minute' : ''}</h3>
          <div className="session-chart">
            <Sparkline
              values={session.throughput}
              width={320}
              height={48}
              label="Bytes per second, last minute"
            />
            <span className="muted">peak {formatBytes(Math.max(0, ...session.throughput))}/s</span>
          </div>
          <h3 className="section-title">Attempts</h3>
          {session.limitation !== undefined && (
            <InfoBanner tone="warn">{session.limitation}</InfoBanner>
          )}
          <Attempts session={session} />
          {session.error !== undefined && (
            <ErrorBanner error={session.error} title="Why it failed" />
          )}
        </DetailColumn>
      </DetailColumns>
    </DetailPane>
  );
}
