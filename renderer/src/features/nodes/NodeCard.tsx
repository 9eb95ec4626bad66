import type { CapabilityState, NodeStatus } from '../../../../shared/model';
import { capabilityNames } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { CopyButton } from '../../app/CopyButton';
import { Badge, StateBadge } from '../../ui/Badge';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatAge } from '../../ui/format';
import { Icon } from '../../ui/icons';
import { useNow } from '../../ui/clock';
import {
  confirmRemoveNode,
  connectNode,
  disconnectNode,
  openNodeForm,
  versionCommand,
} from './actions';
import { updatesText } from './updates';

/** What each capability means, in the words a node debugger would use. */
const capabilityLabels: Readonly<Record<(typeof capabilityNames)[number], string>> = {
  containerEvents: 'Container events',
  runtimeConfig: 'Runtime config',
  podSandboxStats: 'Pod stats',
  containerStats: 'Container stats',
  metricDescriptors: 'Metric descriptors',
  podSandboxMetrics: 'Pod metrics',
  imageFsInfo: 'Image filesystem info',
  checkpointContainer: 'Checkpoint',
};

const capabilityMarks: Readonly<Record<CapabilityState, string>> = {
  supported: '✓',
  unsupported: '—',
  disabled: '○',
  unknown: '?',
};

function Capabilities({ node }: { node: NodeStatus }) {
  const capabilities = node.capabilities;
  if (capabilities === undefined) return null;
  return (
    <div className="section">
      <h4 className="section-title">Capabilities</h4>
      <ul className="capabilities list-plain" aria-label={`Capabilities of ${node.name}`}>
        {capabilityNames.map((name) => (
          <li key={name} className="capability" data-state={capabilities[name]}>
            <span className="capability-mark" aria-hidden>
              {capabilityMarks[capabilities[name]]}
            </span>
            <span>{capabilityLabels[name]}</span>
            <span className="visually-hidden">: {capabilities[name]}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function sshState(node: NodeStatus, now: number): string | undefined {
  const ssh = node.ssh;
  if (ssh === undefined) return undefined;
  switch (ssh.state) {
    case 'connected':
      return `Connected for ${formatAge(ssh.since, now)}`;
    case 'reconnecting':
      return `Reconnecting (attempt ${ssh.attempt}): ${ssh.reason}`;
    case 'disconnected':
      return ssh.reason;
  }
}

function RuntimeStatus({ node }: { node: NodeStatus }) {
  const now = useNow();
  const runtime = node.runtime;
  if (runtime === undefined) return null;
  const ssh = sshState(node, now);
  return (
    <>
      <dl className="props">
        {ssh !== undefined && (
          <>
            <dt>SSH</dt>
            <dd>{ssh}</dd>
          </>
        )}
        {node.runtimeEndpoint !== undefined && (
          <>
            <dt>Socket</dt>
            <dd>
              <code>{node.runtimeEndpoint}</code>
            </dd>
          </>
        )}
        <dt>Runtime</dt>
        <dd>
          {runtime.runtimeName} {runtime.runtimeVersion}
        </dd>
        <dt>CRI API</dt>
        <dd>
          {runtime.runtimeApiVersion}
          <span className="faint"> · kubelet API {runtime.apiVersion}</span>
        </dd>
        {node.updates !== undefined && (
          <>
            <dt>Updates</dt>
            <dd>{updatesText(node)}</dd>
          </>
        )}
        {node.connectedAt !== undefined && (
          <>
            <dt>Connected</dt>
            <dd>{formatAge(node.connectedAt, now)} ago</dd>
          </>
        )}
        {runtime.handlers.length > 0 && (
          <>
            <dt>Handlers</dt>
            <dd>{runtime.handlers.map((handler) => handler.name || '(default)').join(', ')}</dd>
          </>
        )}
      </dl>
      {runtime.conditions.length > 0 && (
        <div className="section">
          <h4 className="section-title">Conditions</h4>
          <ul className="conditions list-plain">
            {runtime.conditions.map((condition) => (
              <li key={condition.type} className="condition">
                <Badge tone={condition.status ? 'ok' : 'danger'}>
                  {condition.status ? 'true' : 'false'}
                </Badge>
                <span>{condition.type}</span>
                {(condition.reason !== '' || condition.message !== '') && (
                  <span className="muted">
                    {[condition.reason, condition.message].filter(Boolean).join(': ')}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

export function NodeCard({ node }: { node: NodeStatus }) {
  const model = useModel();
  const pending = useNodes((state) => state.pending[node.nodeId]);
  const connected = node.state === 'connected';
  const busy = pending !== undefined || node.state === 'connecting';

  return (
    <article className="node-card" data-state={node.state} aria-label={node.name}>
      <header className="node-card-header">
        <Icon name="nodes" size={18} />
        <div className="node-card-title">
          <h3 title={node.name}>{node.name}</h3>
          <code className="node-endpoint" title={node.endpoint}>
            {node.endpoint}
          </code>
        </div>
        <Badge
          tone="neutral"
          plain
          title={node.origin === 'saved' ? 'A saved node' : 'Found on this machine'}
        >
          {node.origin}
        </Badge>
        <StateBadge state={pending === 'connecting' ? 'connecting' : node.state} />
      </header>
      <div className="node-card-body">
        {node.error !== undefined && node.state !== 'connected' && (
          <ErrorBanner error={node.error} />
        )}
        {node.error !== undefined && node.state === 'connected' && (
          <ErrorBanner error={node.error} tone="warn" />
        )}
        <RuntimeStatus node={node} />
        {connected && <Capabilities node={node} />}
        {!connected && node.runtime === undefined && node.error === undefined && (
          <p className="muted">Not connected. Connect to see its runtime, pods and containers.</p>
        )}
      </div>
      <footer className="node-card-actions">
        {connected ? (
          <>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                model.nodes.getState().setScope({ kind: 'node', nodeId: node.nodeId });
                model.ui.getState().navigate('pods');
              }}
            >
              <Icon name="pods" size={14} />
              Show pods
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={busy}
              onClick={() => void disconnectNode(model, node)}
            >
              <Icon name="unplug" size={14} />
              {pending === 'disconnecting' ? 'Disconnecting…' : 'Disconnect'}
            </button>
          </>
        ) : (
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={busy}
            onClick={() => void connectNode(model, node)}
          >
            <Icon name="plug" size={14} />
            {busy ? 'Connecting…' : node.state === 'failed' ? 'Retry' : 'Connect'}
          </button>
        )}
        {node.origin === 'saved' ? (
          <>
            <button
              type="button"
              className="btn btn-small"
              disabled={pending !== undefined}
              onClick={() => openNodeForm(model, node)}
            >
              <Icon name="edit" size={14} />
              Edit
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={pending !== undefined}
              onClick={() => confirmRemoveNode(model, node)}
            >
              <Icon name="trash" size={14} />
              Remove
            </button>
          </>
        ) : (
          <button type="button" className="btn btn-small" onClick={() => openNodeForm(model, node)}>
            <Icon name="save" size={14} />
            Save…
          </button>
        )}
        <span className="toolbar-spacer" />
        <CopyButton text={versionCommand(node)} what="the crictl command" label="crictl version" />
      </footer>
    </article>
  );
}
