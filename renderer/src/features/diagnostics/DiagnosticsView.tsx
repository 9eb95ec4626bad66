import { useMemo, useState } from 'react';
import { formatLogLine } from '../../../../shared/app-log';
import type { AppLogEntry, AppLogLevel, DiagnosticsReport } from '../../../../shared/model';
import { CopyButton } from '../../app/CopyButton';
import { useModel } from '../../app/context';
import { Badge, type Tone } from '../../ui/Badge';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Icon } from '../../ui/icons';
import { copyReport } from './commands';
import { useDiagnostics } from './use-diagnostics';

const levelTones: Readonly<Record<AppLogLevel, Tone>> = {
  debug: 'neutral',
  info: 'info',
  warn: 'warn',
  error: 'danger',
};

const timeFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

type Filter = 'all' | 'problems';

function About({ report, mode }: { report: DiagnosticsReport; mode: 'electron' | 'browser' }) {
  const { electron, chrome, node, v8 } = report.versions;
  const rows: [string, string][] = [
    ['Porthole', `${report.appVersion} (${mode === 'electron' ? 'desktop app' : 'browser mode'})`],
    ...(electron !== undefined
      ? [['Electron', `${electron} (Chrome ${chrome ?? '?'})`] satisfies [string, string]]
      : []),
    ['Node.js', `${node ?? '?'} (V8 ${v8 ?? '?'})`],
    ['Platform', `${report.platform} ${report.arch}`],
    ['Log file', report.logFile ?? 'none: the log is kept in memory only'],
  ];
  return (
    <dl className="diagnostics-facts">
      {rows.map(([name, value]) => (
        <div key={name} className="diagnostics-fact">
          <dt>{name}</dt>
          <dd className={name === 'Log file' ? 'mono' : undefined}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Nodes({ report }: { report: DiagnosticsReport }) {
  if (report.nodes.length === 0) return <p className="muted">No nodes are known yet.</p>;
  return (
    <table className="diagnostics-nodes">
      <thead>
        <tr>
          <th scope="col">Node</th>
          <th scope="col">State</th>
          <th scope="col">Runtime</th>
          <th scope="col">Capabilities</th>
        </tr>
      </thead>
      <tbody>
        {report.nodes.map((node) => {
          const capabilities = Object.entries(node.capabilities ?? {});
          const supported = capabilities.filter(([, state]) => state === 'supported');
          return (
            <tr key={`${node.kind}:${node.name}`}>
              <td>
                {node.name} <span className="muted">({node.kind})</span>
              </td>
              <td>{node.state}</td>
              <td>
                {node.runtime === undefined
                  ? '—'
                  : `${node.runtime.name} ${node.runtime.version}, CRI ${node.runtime.criVersion}`}
              </td>
              <td title={capabilities.map(([name, state]) => `${name}: ${state}`).join('\n')}>
                {capabilities.length === 0
                  ? '—'
                  : `${supported.length} of ${capabilities.length}: ${supported.map(([name]) => name).join(', ') || 'none'}`}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function LogEntryItem({ entry }: { entry: AppLogEntry }) {
  return (
    <li className={`diagnostics-entry level-${entry.level}`}>
      <time dateTime={new Date(entry.time).toISOString()} className="diagnostics-time">
        {timeFormat.format(entry.time)}
      </time>
      <Badge tone={levelTones[entry.level]} plain>
        {entry.level}
      </Badge>
      <span className="diagnostics-scope">{entry.scope}</span>
      <span className="diagnostics-message">{entry.message}</span>
      {entry.detail !== undefined && <pre className="diagnostics-detail">{entry.detail}</pre>}
    </li>
  );
}

/**
 * Diagnostics: what Porthole itself has been doing (the newest entries of its log, as
 * redacted as the file), and a report of versions, nodes and capabilities to paste
 * into a bug report.
 */
export function DiagnosticsView() {
  const model = useModel();
  const { tail, report, error, loading, refresh } = useDiagnostics(model);
  const [filter, setFilter] = useState<Filter>('all');
  const entries = useMemo(
    () =>
      (tail?.entries ?? []).filter(
        (entry) => filter === 'all' || entry.level === 'warn' || entry.level === 'error',
      ),
    [tail, filter],
  );
  return (
    <div className="view diagnostics">
      <div className="toolbar" role="toolbar" aria-label="Diagnostics">
        <button type="button" className="btn btn-primary" onClick={() => void copyReport(model)}>
          <Icon name="copy" size={14} />
          Copy report
        </button>
        <CopyButton
          text={() => entries.map(formatLogLine).join('')}
          what="the log entries shown"
          label="Copy log"
        />
        <button type="button" className="btn" onClick={refresh} disabled={loading}>
          <Icon name="refresh" size={14} />
          Refresh
        </button>
        <span className="toolbar-spacer" />
        <span className="toolbar-status" role="status">
          {loading ? 'Reading…' : tail !== undefined ? `${tail.entries.length} entries` : ''}
        </span>
      </div>
      <div className="diagnostics-body">
        {error !== undefined && <ErrorBanner error={error} title="Diagnostics could not be read" />}
        {report !== undefined && (
          <>
            <section className="diagnostics-section" aria-labelledby="diagnostics-about">
              <h2 id="diagnostics-about" className="subheading">
                About this Porthole
              </h2>
              <About report={report} mode={model.client.mode} />
            </section>
            <section className="diagnostics-section" aria-labelledby="diagnostics-nodes">
              <h2 id="diagnostics-nodes" className="subheading">
                Nodes
              </h2>
              <Nodes report={report} />
            </section>
          </>
        )}
        <section className="diagnostics-section diagnostics-log" aria-labelledby="diagnostics-log">
          <div className="diagnostics-log-head">
            <h2 id="diagnostics-log" className="subheading">
              Recent log
            </h2>
            <label className="diagnostics-filter">
              Show
              <select
                className="select"
                value={filter}
                onChange={(event) => setFilter(event.target.value as Filter)}
              >
                <option value="all">Everything</option>
                <option value="problems">Warnings and errors</option>
              </select>
            </label>
            {tail !== undefined && tail.omitted > 0 && (
              <span className="muted">
                {tail.omitted} older {tail.omitted === 1 ? 'entry' : 'entries'} in the log file
              </span>
            )}
          </div>
          {tail !== undefined && entries.length === 0 ? (
            <p className="muted">
              {filter === 'all' ? 'Nothing logged yet.' : 'No warnings or errors.'}
            </p>
          ) : (
            // Scrollable, so reachable from the keyboard; newest last, as in the file.
            <ol className="diagnostics-entries" aria-label="Recent log entries" tabIndex={0}>
              {entries.map((entry, index) => (
                <LogEntryItem key={`${entry.time}-${index}`} entry={entry} />
              ))}
            </ol>
          )}
        </section>
      </div>
    </div>
  );
}
