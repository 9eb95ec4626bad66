import { useEffect, useState } from 'react';
import type { ConnectionMetrics } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { useStore } from 'zustand';
import { Badge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Field } from '../../ui/Field';
import { formatBytes, formatCount } from '../../ui/format';
import { StaticTable, type StaticColumn } from '../../ui/table/StaticTable';
import { DetailColumn, DetailColumns, Prop, Props } from '../../ui/view/detail-parts';
import { DetailPane } from '../../ui/view/DetailPane';
import { Age } from '../resources/cells';
import { openMoveDialog, updateForward } from './actions';
import { ForwardStateBadge } from './columns';
import { describeTarget, type ForwardRow } from './entries';
import { ForwardLink } from './ForwardLinks';
import { forwardsOf } from './store';

const connectionTones = {
  waiting: 'info',
  connecting: 'info',
  open: 'ok',
  closed: 'neutral',
  failed: 'danger',
} as const;

const connectionColumns: readonly StaticColumn<ConnectionMetrics>[] = [
  { header: '#', render: (connection) => connection.id },
  { header: 'Client', mono: true, render: (connection) => connection.client },
  {
    header: 'Ports',
    mono: true,
    render: (connection) => (
      <>
        {connection.localPort} → {connection.remotePort}
      </>
    ),
  },
  {
    header: 'State',
    render: (connection) => (
      <Badge tone={connectionTones[connection.state]} busy={connection.state === 'connecting'}>
        {connection.state}
      </Badge>
    ),
  },
  {
    header: 'Opened',
    render: (connection) => (
      <>
        <Age since={connection.openedAt} /> ago
      </>
    ),
  },
  { header: 'In', align: 'end', render: (connection) => formatBytes(connection.bytesIn) },
  { header: 'Out', align: 'end', render: (connection) => formatBytes(connection.bytesOut) },
  {
    header: 'Error',
    render: (connection) => connection.error?.message ?? '',
    title: (connection) => connection.error?.detail,
  },
];

function ConnectionsTable({ connections }: { connections: readonly ConnectionMetrics[] }) {
  if (connections.length === 0) {
    return <p className="faint">No connections yet.</p>;
  }
  return (
    <StaticTable
      label="Connections"
      className="detail-table forward-connections"
      columns={connectionColumns}
      rows={connections}
      rowKey={(connection) => connection.id}
    />
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
      <Field id="forward-detail-name" label="Name">
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
      </Field>
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
    <DetailPane
      placement="below"
      className="forward-detail"
      label={`Forward ${entry.name}`}
      title={entry.name}
      status={<ForwardStateBadge row={row} />}
      reason={row.reason}
      onClose={onClose}
    >
      <DetailColumns className="forward-detail-body">
        <DetailColumn>
          <Props>
            <Prop label="Node">
              {row.nodeName}{' '}
              <Button
                small
                variant="ghost"
                onClick={() => openMoveDialog(model, entry, row.nodeName)}
              >
                {entry.orphaned === true ? 'Move to another node…' : 'Move…'}
              </Button>
            </Prop>
            <Prop label="Target" className="mono">
              {describeTarget(spec.target)}
            </Prop>
            {live?.pod !== undefined && (
              <Prop label="Pod sandbox" className="mono" title={live.pod.podSandboxId}>
                {live.pod.namespace}/{live.pod.name} · {live.pod.podSandboxId.slice(0, 13)}
              </Prop>
            )}
            <Prop label="Ports" className="mono">
              {spec.ports
                .map(
                  (port) =>
                    `${port.localPort === 0 ? 'auto' : port.localPort} → ${port.remotePort}`,
                )
                .join(', ')}
            </Prop>
            <Prop label="Listen on" className="mono">
              {spec.addresses?.join(', ') ?? 'loopback (127.0.0.1, ::1)'}
            </Prop>
            {row.urls.length > 0 && (
              <Prop label="Local URLs" className="forward-links">
                {row.urls.map((url) => (
                  <ForwardLink key={url.href} url={url} compact={false} />
                ))}
              </Prop>
            )}
            <Prop label="Transport">
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
            </Prop>
            {live !== undefined && (
              <>
                <Prop label="In this state">
                  <Age since={live.state.since} />
                </Prop>
                <Prop label="Connections">
                  {formatCount(live.metrics.openConnections)} open,{' '}
                  {formatCount(live.metrics.totalConnections)} in all,{' '}
                  {formatCount(live.metrics.failedConnections)} failed
                </Prop>
                <Prop label="Traffic">
                  {formatBytes(live.metrics.bytesIn)} in · {formatBytes(live.metrics.bytesOut)} out
                </Prop>
              </>
            )}
          </Props>
          <Options row={row} />
        </DetailColumn>
        <DetailColumn>
          {row.error !== undefined && (
            <ErrorBanner
              error={row.error}
              title="Last error"
              tone={row.state === 'failed' ? 'error' : 'warn'}
            />
          )}
          <h3 className="section-title">Connections</h3>
          <ConnectionsTable connections={live?.connections ?? []} />
        </DetailColumn>
      </DetailColumns>
    </DetailPane>
  );
}
