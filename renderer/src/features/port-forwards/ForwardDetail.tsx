import { useEffect, useState } from 'react';
import type { ConnectionMetrics } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { useStore } from 'zustand';
import { Badge } from '../../ui/Badge';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatBytes, formatCount } from '../../ui/format';
import { Icon } from '../../ui/icons';
import { Age } from '../resources/cells';
import { openMoveDialog, updateForward } from './actions';
import { describeTarget, stateTones, type ForwardRow } from './entries';
import { ForwardLink } from './ForwardLinks';
import { forwardsOf } from './store';

const connectionTones = {
  waiting: 'info',
  connecting: 'info',
  open: 'ok',
  closed: 'neutral',
  failed: 'danger',
} as const;

function ConnectionsTable({ connections }: { connections: readonly ConnectionMetrics[] }) {
  if (connections.length === 0) {
    return <p className="faint">No connections yet.</p>;
  }
  return (
    <table className="forward-connections" aria-label="Connections">
      <thead>
        <tr>
          <th>#</th>
          <th>Client</th>
          <th>Ports</th>
          <th>State</th>
          <th>Opened</th>
          <th className="end">In</th>
          <th className="end">Out</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {connections.map((connection) => (
          <tr key={connection.id}>
            <td>{connection.id}</td>
            <td className="mono">{connection.client}</td>
            <td className="mono">
              {connection.localPort} → {connection.remotePort}
            </td>
            <td>
              <Badge
                tone={connectionTones[connection.state]}
                busy={connection.state === 'connecting'}
              >
                {connection.state}
              </Badge>
            </td>
            <td>
              <Age since={connection.openedAt} /> ago
            </td>
            <td className="end">{formatBytes(connection.bytesIn)}</td>
            <td className="end">{formatBytes(connection.bytesOut)}</td>
            <td title={connection.error?.detail}>{connection.error?.message ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Name, saving and auto-start: edited in place, saved at once. */
function Options({ row }: { row: ForwardRow }) {
  const model = useModel();
  const entry = row.entry;
  const pending = useStore(forwardsOf(model).store, (state) => state.pending[entry.id]);
  const [name, setName] = useState(entry.name);
  useEffect(() => setName(entry.name), [entry.name]);
  const rename = (): void => {
    const next = name.trim();
    if (next === entry.name) return;
    void updateForward(model, entry, { name: next });
  };
  return (
    <div className="forward-options">
      <div className="field">
        <label htmlFor="forward-detail-name">Name</label>
        <input
          id="forward-detail-name"
          className="input"
          value={name}
          onChange={(event) => setName(event.target.value)}
          onBlur={rename}
          onKeyDown={(event) => {
            if (event.key === 'Enter') rename();
          }}
        />
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={entry.saved}
          disabled={pending !== undefined}
          onChange={(event) => void updateForward(model, entry, { save: event.target.checked })}
        />
        Saved <span className="faint">(kept when Porthole restarts)</span>
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={entry.autoStart}
          disabled={!entry.saved || pending !== undefined}
          onChange={(event) =>
            void updateForward(model, entry, { autoStart: event.target.checked })
          }
        />
        Start whenever its node connects
      </label>
    </div>
  );
}

/** Everything about one forward, under the table: it follows every change live. */
export function ForwardDetail({ row, onClose }: { row: ForwardRow; onClose: () => void }) {
  const model = useModel();
  const entry = row.entry;
  const live = entry.live;
  const spec = entry.spec;
  return (
    <section className="bottom-detail forward-detail" aria-label={`Forward ${entry.name}`}>
      <header className="bottom-detail-header">
        <h2>{entry.name}</h2>
        <Badge
          tone={stateTones[row.state]}
          busy={row.state === 'starting' || row.state === 'reconnecting'}
        >
          {row.state}
        </Badge>
        <span className="muted forward-detail-reason">{row.reason}</span>
        <button
          type="button"
          className="btn btn-small btn-ghost btn-icon"
          aria-label="Close the details"
          onClick={onClose}
        >
          <Icon name="close" size={14} />
        </button>
      </header>
      <div className="forward-detail-body">
        <div className="forward-detail-column">
          <dl className="props">
            <dt>Node</dt>
            <dd>
              {row.nodeName}{' '}
              <button
                type="button"
                className="btn btn-small btn-ghost"
                onClick={() => openMoveDialog(model, entry, row.nodeName)}
              >
                {entry.orphaned === true ? 'Move to another node…' : 'Move…'}
              </button>
            </dd>
            <dt>Target</dt>
            <dd className="mono">{describeTarget(spec.target)}</dd>
            {live?.pod !== undefined && (
              <>
                <dt>Pod sandbox</dt>
                <dd className="mono" title={live.pod.podSandboxId}>
                  {live.pod.namespace}/{live.pod.name} · {live.pod.podSandboxId.slice(0, 13)}
                </dd>
              </>
            )}
            <dt>Ports</dt>
            <dd className="mono">
              {spec.ports
                .map(
                  (port) =>
                    `${port.localPort === 0 ? 'auto' : port.localPort} → ${port.remotePort}`,
                )
                .join(', ')}
            </dd>
            <dt>Listen on</dt>
            <dd className="mono">{spec.addresses?.join(', ') ?? 'loopback (127.0.0.1, ::1)'}</dd>
            {row.urls.length > 0 && (
              <>
                <dt>Local URLs</dt>
                <dd className="forward-links">
                  {row.urls.map((url) => (
                    <ForwardLink key={url.href} url={url} compact={false} />
                  ))}
                </dd>
              </>
            )}
            <dt>Transport</dt>
            <dd>
              {live?.transport === undefined ? (
                <span className="faint">{spec.transport ?? 'auto'}</span>
              ) : (
                <>
                  {live.transport.kind === 'spdy' ? 'SPDY' : 'WebSocket'}{' '}
                  <span className="mono">{live.transport.protocol}</span>
                  {live.transport.fallbackReason !== undefined && (
                    <div className="muted">
                      Fell back from SPDY: {live.transport.fallbackReason}
                    </div>
                  )}
                </>
              )}
            </dd>
            {live !== undefined && (
              <>
                <dt>In this state</dt>
                <dd>
                  <Age since={live.state.since} />
                </dd>
                <dt>Connections</dt>
                <dd>
                  {formatCount(live.metrics.openConnections)} open,{' '}
                  {formatCount(live.metrics.totalConnections)} in all,{' '}
                  {formatCount(live.metrics.failedConnections)} failed
                </dd>
                <dt>Traffic</dt>
                <dd>
                  {formatBytes(live.metrics.bytesIn)} in · {formatBytes(live.metrics.bytesOut)} out
                </dd>
              </>
            )}
          </dl>
          <Options row={row} />
        </div>
        <div className="forward-detail-column">
          {row.error !== undefined && (
            <ErrorBanner
              error={row.error}
              title="Last error"
              tone={row.state === 'failed' ? 'error' : 'warn'}
            />
          )}
          <h3 className="section-title">Connections</h3>
          <ConnectionsTable connections={live?.connections ?? []} />
        </div>
      </div>
    </section>
  );
}
