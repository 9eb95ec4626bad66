import { useId, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { NodeStatus } from '../../../../shared/model';
import { ConfirmDialog } from '../../app/ConfirmDialog';
import { useModel } from '../../app/context';
import { nodeTopic, runAction, type AppModel } from '../../app/model';
import { forwardsOf } from '../port-forwards/store';
import { crictlCommand } from '../resources/crictl';
import { NodeFormDialog } from './NodeFormDialog';
import { withPending } from './nodes-store';

/**
 * Connect, Retry and "Connect to …": each makes a new connection. A reconnecting node
 * tries at once over a new one; when that fails it stays reconnecting (the core goes on
 * trying), so its status is not marked failed here.
 */
export async function connectNode(model: AppModel, node: NodeStatus): Promise<void> {
  const { mergeStatus } = model.nodes.getState();
  const reconnecting = node.state === 'reconnecting';
  const failed = (error: AppErrorData): void => {
    if (!reconnecting) mergeStatus({ ...node, state: 'failed', error });
    model.toasts.getState().show({
      tone: 'error',
      title: reconnecting ? `${node.name} is still down` : `Could not connect to ${node.name}`,
      error,
      topic: nodeTopic(node.nodeId),
    });
  };
  await withPending(model.nodes, node.nodeId, 'connecting', async () => {
    try {
      const status = await model.client.services.nodes.connect(node.nodeId);
      mergeStatus(status);
      // Some failures come back as a status rather than a rejection: say so all the same.
      if (status.state === 'failed' && status.error !== undefined) failed(status.error);
    } catch (error) {
      failed(toAppErrorData(error));
    }
  });
}

export async function disconnectNode(model: AppModel, node: NodeStatus): Promise<void> {
  await withPending(model.nodes, node.nodeId, 'disconnecting', () =>
    runAction(model, () => model.client.services.nodes.disconnect(node.nodeId), {
      success: `Disconnected from ${node.name}`,
      failure: `Could not disconnect from ${node.name}`,
      topic: nodeTopic(node.nodeId),
    }),
  );
}

export function openNodeForm(model: AppModel, node?: NodeStatus): void {
  model.ui.getState().openDialog({
    key: `node-form:${node?.nodeId ?? 'new'}`,
    render: (close) => <NodeFormDialog node={node} onClose={close} />,
  });
}

export function confirmRemoveNode(model: AppModel, node: NodeStatus): void {
  model.ui.getState().openDialog({
    key: `remove-node:${node.nodeId}`,
    render: (close) => <RemoveNodeDialog node={node} onClose={close} />,
  });
}

/**
 * "Remove lab-2?": says what goes with it. A node with port forwards asks what becomes of
 * them: removed too, or kept (stopped, to be moved to another node). Nothing is left
 * pointing at a node that is gone without the user knowing.
 */
function RemoveNodeDialog({ node, onClose }: { node: NodeStatus; onClose: () => void }) {
  const model = useModel();
  const name = useId();
  const all = useStore(forwardsOf(model).store, (state) => state.forwards);
  const forwards = useMemo(
    () => all.filter((forward) => forward.nodeId === node.nodeId),
    [all, node.nodeId],
  );
  const [choice, setChoice] = useState<'keep' | 'remove'>('keep');
  const count = forwards.length;
  const saved = forwards.filter((forward) => forward.saved).length;
  const them = count === 1 ? 'it' : 'them';
  return (
    <ConfirmDialog
      title={`Remove ${node.name}?`}
      confirmLabel="Remove"
      danger
      onClose={onClose}
      onConfirm={() =>
        withPending(model.nodes, node.nodeId, 'removing', () =>
          runAction(
            model,
            () =>
              model.client.services.nodes.removeProfile(node.nodeId, {
                forwards: count === 0 ? 'keep' : choice,
              }),
            {
              success: `Removed ${node.name}`,
              failure: `Could not remove ${node.name}`,
              topic: nodeTopic(node.nodeId),
            },
          ),
        )
      }
      extra={
        count > 0 && (
          <div className="field" role="radiogroup" aria-label={`The forwards of ${node.name}`}>
            <span className="field-label">
              It has {count === 1 ? 'a port forward' : `${count} port forwards`} (
              {forwards.map((forward) => forward.name).join(', ')})
              {saved > 0
                ? `, ${saved === count ? (count === 1 ? 'saved' : 'all saved') : `${saved} saved`}`
                : ''}
              .
            </span>
            <label className="checkbox">
              <input
                type="radio"
                name={name}
                checked={choice === 'keep'}
                onChange={() => setChoice('keep')}
              />
              <span>
                Keep {them}{' '}
                <span className="muted">(stopped; move {them} to another node later)</span>
              </span>
            </label>
            <label className="checkbox">
              <input
                type="radio"
                name={name}
                checked={choice === 'remove'}
                onChange={() => setChoice('remove')}
              />
              <span>
                Remove {them} too{' '}
                {saved > 0 && <span className="muted">(Porthole forgets the saved ones)</span>}
              </span>
            </label>
          </div>
        )
      }
    >
      <p>
        Porthole forgets the saved node <span className="resource-name">{node.name}</span> (
        <code>{node.endpoint}</code>)
        {node.state === 'connected' || node.state === 'reconnecting'
          ? ' and disconnects from it'
          : ''}
        . Nothing on the node changes.
      </p>
    </ConfirmDialog>
  );
}

export function versionCommand(node: NodeStatus): string {
  // crictl runs on the node: for an SSH node that is the socket on the node, not ssh://….
  const endpoint =
    node.kind === 'ssh'
      ? (node.runtimeEndpoint ?? 'unix:///run/containerd/containerd.sock')
      : node.endpoint;
  return crictlCommand({ endpoint, timeoutMs: node.profile?.timeoutMs }, { kind: 'version' });
}
