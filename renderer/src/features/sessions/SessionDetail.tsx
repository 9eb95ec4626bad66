import type { SessionSnapshot } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { Badge } from '../../ui/Badge';
import { useNow } from '../../ui/clock';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { formatBytes } from '../../ui/format';
import { Icon } from '../../ui/icons';
import { Sparkline } from '../../ui/Sparkline';
import { confirmKill } from './actions';
import { describeTransport, formatDuration, isLive, kindLabels, sessionStateTones } from './rows';

function Attempts({ session }: { session: SessionSnapshot }) {
  if (session.attempts.length === 0) {
    return <p className="faint">No stream attempts reported.</p>;
  }
  return (
    <table className="session-attempts" aria-label="Attempts">
      <thead>
        <tr>
          <th>Transport</th>
          <th>Outcome</th>
          <th>Status</th>
          <th>Took</th>
          <th>Protocols offered</th>
          <th>Message</th>
        </tr>
      </thead>
      <tbody>
        {session.attempts.map((attempt, index) => (
          <tr key={index}>
            <td>{attempt.transport}</td>
            <td>
              <Badge
                tone={
                  attempt.outcome === 'ok'
                    ? 'ok'
                    : attempt.outcome === 'refused'
                      ? 'warn'
                      : 'danger'
                }
              >
                {attempt.outcome}
              </Badge>
            </td>
            <td>{attempt.status ?? '—'}</td>
            <td>{attempt.durationMs > 0 ? `${Math.round(attempt.durationMs)} ms` : '—'}</td>
            <td className="mono">{attempt.protocolsOffered?.join(', ') ?? '—'}</td>
            <td>{attempt.message ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

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
    <section className="bottom-detail session-detail" aria-label="Session details">
      <header className="bottom-detail-header">
        <h2>
          {kindLabels[session.kind]} · {target.description}
        </h2>
        <Badge
          tone={sessionStateTones[session.state]}
          busy={session.state === 'starting' || session.state === 'reconnecting'}
        >
          {session.state}
        </Badge>
        <span className="muted session-detail-reason">{session.stateReason}</span>
        {session.killable && (
          <button
            type="button"
            className="btn btn-small btn-danger"
            onClick={() => confirmKill(model, session)}
          >
            Kill…
          </button>
        )}
        <button
          type="button"
          className="btn btn-small btn-ghost btn-icon"
          aria-label="Close the details"
          onClick={onClose}
        >
          <Icon name="close" size={14} />
        </button>
      </header>
      <div className="session-detail-body">
        <dl className="props">
          <dt>Node</dt>
          <dd>{session.nodeName}</dd>
          {session.detail !== undefined && (
            <>
              <dt>
                {session.kind === 'port-forward'
                  ? 'Ports'
                  : session.kind === 'logs'
                    ? 'File'
                    : 'Command'}
              </dt>
              <dd className="mono">{session.detail}</dd>
            </>
          )}
          {target.podSandboxId !== undefined && (
            <>
              <dt>Pod</dt>
              <dd className="mono" title={target.podSandboxId}>
                {target.namespace !== undefined && target.podName !== undefined
                  ? `${target.namespace}/${target.podName} · `
                  : ''}
                {target.podSandboxId.slice(0, 13)}
              </dd>
            </>
          )}
          {target.containerId !== undefined && (
            <>
              <dt>Container</dt>
              <dd className="mono" title={target.containerId}>
                {target.containerName ?? ''} {target.containerId.slice(0, 13)}
              </dd>
            </>
          )}
          <dt>Transport</dt>
          <dd>{describeTransport(session)}</dd>
          <dt>Started</dt>
          <dd>{new Date(session.startedAt).toLocaleString()}</dd>
          {session.endedAt !== undefined && (
            <>
              <dt>Ended</dt>
              <dd>{new Date(session.endedAt).toLocaleString()}</dd>
            </>
          )}
          <dt>Duration</dt>
          <dd>{formatDuration((session.endedAt ?? now) - session.startedAt)}</dd>
          <dt>Traffic</dt>
          <dd>
            {formatBytes(session.bytesIn)} in · {formatBytes(session.bytesOut)} out
          </dd>
          {session.exitCode !== undefined && (
            <>
              <dt>Exit code</dt>
              <dd>{session.exitCode}</dd>
            </>
          )}
          <dt>Session id</dt>
          <dd className="mono faint">{session.id}</dd>
        </dl>
        <div className="session-detail-column">
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
        </div>
      </div>
    </section>
  );
}
