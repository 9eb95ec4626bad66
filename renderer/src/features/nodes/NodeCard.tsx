import { memo } from 'react';
import type { CapabilityState, NodeStatus } from '../../../../shared/model';
import { capabilityNames } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { CopyButton } from '../../app/CopyButton';
import { Badge, StateBadge } from '../../ui/Badge';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { formatAge, formatClock } from '../../ui/format';
import { Button } from '../../ui/Button';
import { Icon } from '../../ui/icons';
import { useNow } from '../../ui/clock';
import {
  confirmRemoveNode,
  connectNode,
  disconnectNode,
  openNodeForm,
  versionCommand,
} from './actions';
import { asOfText, NodeDownBanner } from './outage';
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

/** The CRI call that proves each capability, and the crictl command that makes it. */
const capabilityProbes: Readonly<
  Record<(typeof capabilityNames)[number], { readonly method: string; readonly crictl: string }>
> = {
  containerEvents: { method: 'GetContainerEvents', crictl: 'crictl events' },
  runtimeConfig: { method: 'RuntimeConfig', crictl: 'crictl runtime-config' },
  podSandboxStats: { method: 'ListPodSandboxStats', crictl: 'crictl statsp' },
  containerStats: { method: 'ListContainerStats', crictl: 'crictl stats' },
  metricDescriptors: { method: 'ListMetricDescriptors', crictl: 'crictl metricdescs' },
  podSandboxMetrics: { method: 'ListPodSandboxMetrics', crictl: 'crictl metricsp' },
  imageFsInfo: { method: 'ImageFsInfo', crictl: 'crictl imagefsinfo' },
  checkpointContainer: { method: 'CheckpointContainer', crictl: 'crictl checkpoint <container>' },
};

/** What a mark means, and for "?" what unknown means and how to find out. */
export function capabilityTooltip(
  name: (typeof capabilityNames)[number],
  state: CapabilityState,
): string {
  const { method, crictl } = capabilityProbes[name];
  switch (state) {
    case 'supported':
      return `Supported: the runtime answered ${method}.`;
    case 'unsupported':
      return `Not supported: the runtime answered ${method} with “unimplemented”.`;
    case 'disabled':
      return `Switched off: the runtime answers ${method} but its configuration turns it off, so Porthole does without it.`;
    case 'unknown':
      return name === 'checkpointContainer'
        ? `Unknown: Porthole never calls ${method} by itself, since it writes a checkpoint of a container. To find out, try \`${crictl}\` on the node: “unimplemented” means not supported.`
        : `Unknown: ${method} failed when Porthole probed it, for a reason other than “unimplemented” (for example a pod without a cgroup), so it can't tell yet. It is settled the first time the call gets an answer; to find out now, run \`${crictl}\` on the node.`;
  }
}

function Capabilities({ node }: { node: NodeStatus }) {
  const capabilities = node.capabilities;
  if (capabilities === undefined) return null;
  return (
    <div className="section">
      <h4 className="section-title">Capabilities</h4>
      <ul className="capabilities list-plain" aria-label={`Capabilities of ${node.name}`}>
        {capabilityNames.map((name) => (
          <li
            key={name}
            className="capability"
            data-state={capabilities[name]}
            title={capabilityTooltip(name, capabilities[name])}
          >
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
  const asOf = asOfText(node, now);
  return (
    <>
      {asOf !== undefined && (
        <p className="node-card-stale muted">Last known, {asOf}: the runtime does not answer.</p>
      )}
      <dl className={asOf !== undefined ? 'props stale' : 'props'}>
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
        {node.runtimeChange !== undefined && (
          <>
            <dt>Changed</dt>
            <dd>
              {node.runtimeChange.from} → {node.runtimeChange.to}{' '}
              <span className="faint">at {formatClock(node.runtimeChange.at)}</span>
            </dd>
          </>
        )}
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
        {node.outage !== undefined ? (
          <>
            <dt>{node.outage.kind === 'not-answering' ? 'Not answering' : 'Down'}</dt>
            <dd>
              since {formatClock(node.outage.since)}{' '}
              <span className="faint">({formatAge(node.outage.since, now)})</span>
            </dd>
          </>
        ) : (
          node.connectedAt !== undefined && (
            <>
              <dt>Connected</dt>
              <dd>{formatAge(node.connectedAt, now)} ago</dd>
            </>
          )
        )}
        {runtime.handlers.length > 0 && (
          <>
            <dt>Handlers</dt>
            <dd>{runtime.handlers.map((handler) => handler.name || '(default)').join(', ')}</dd>
          </>
        )}
      </dl>
      {runtime.conditions.length > 0 && (
        <div className={asOf !== undefined ? 'section stale' : 'section'}>
          <h4 className="section-title">
            Conditions{asOf !== undefined && <span className="muted"> · last known</span>}
          </h4>
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

/**
 * One node's card. Memoised on the status object: when one node of hundreds changes, one
 * card renders (statuses that didn't change keep their identity, see nodes-store).
 * `level` is its name's heading level: 3 under a group's heading, 2 when the cards are not
 * grouped, so the headings never skip a level.
 */
export const NodeCard = memo(function NodeCard({
  node,
  level = 2,
}: {
  node: NodeStatus;
  level?: 2 | 3;
}) {
  const Heading = level === 2 ? 'h2' : 'h3';
  const model = useModel();
  const pending = useNodes((state) => state.pending[node.nodeId]);
  const connected = node.state === 'connected';
  const reconnecting = node.state === 'reconnecting';
  const busy = pending !== undefined || node.state === 'connecting';

  return (
    // tabIndex -1: the list can give it the focus when the card moves (see NodeCardList).
    <article className="node-card" data-state={node.state} aria-label={node.name} tabIndex={-1}>
      <header className="node-card-header">
        <Icon name="nodes" size={18} />
        <div className="node-card-title">
          <Heading title={node.name}>{node.name}</Heading>
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
        {reconnecting && <NodeDownBanner node={node} />}
        {node.error !== undefined && !connected && !reconnecting && (
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
        {connected || reconnecting ? (
          <>
            <Button
              small
              icon="pods"
              onClick={() => {
                model.nodes.getState().setScope({ kind: 'node', nodeId: node.nodeId });
                model.ui.getState().navigate('pods');
              }}
            >
              Show pods
            </Button>
            <Button
              small
              icon="unplug"
              disabled={busy}
              onClick={() => void disconnectNode(model, node)}
            >
              {pending === 'disconnecting' ? 'Disconnecting…' : 'Disconnect'}
            </Button>
          </>
        ) : (
          <Button
            small
            variant="primary"
            icon="plug"
            disabled={busy}
            onClick={() => void connectNode(model, node)}
          >
            {busy ? 'Connecting…' : node.state === 'failed' ? 'Retry' : 'Connect'}
          </Button>
        )}
        {node.origin === 'saved' ? (
          <>
            <Button
              small
              icon="edit"
              disabled={pending !== undefined}
              onClick={() => openNodeForm(model, node)}
            >
              Edit
            </Button>
            <Button
              small
              icon="trash"
              disabled={pending !== undefined}
              onClick={() => confirmRemoveNode(model, node)}
            >
              Remove
            </Button>
          </>
        ) : (
          <Button small icon="save" onClick={() => openNodeForm(model, node)}>
            Save…
          </Button>
        )}
        <span className="toolbar-spacer" />
        <CopyButton text={versionCommand(node)} what="the crictl command" label="crictl version" />
      </footer>
    </article>
  );
});
