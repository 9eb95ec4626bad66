import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { NodeStatus } from '../../../../shared/model';
import { ConfirmDialog } from '../../app/ConfirmDialog';
import { nodeTopic, runAction, type AppModel } from '../../app/model';
import { crictlCommand } from '../resources/crictl';
import { NodeFormDialog } from './NodeFormDialog';
import { withPending } from './nodes-store';

export async function connectNode(model: AppModel, node: NodeStatus): Promise<void> {
  const { mergeStatus } = model.nodes.getState();
  const failed = (error: AppErrorData): void => {
    mergeStatus({ ...node, state: 'failed', error });
    model.toasts.getState().show({
      tone: 'error',
      title: `Could not connect to ${node.name}`,
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
    render: (close) => (
      <ConfirmDialog
        title={`Remove ${node.name}?`}
        confirmLabel="Remove"
        danger
        onClose={close}
        onConfirm={() =>
          withPending(model.nodes, node.nodeId, 'removing', () =>
            runAction(model, () => model.client.services.nodes.removeProfile(node.nodeId), {
              success: `Removed ${node.name}`,
              failure: `Could not remove ${node.name}`,
              topic: nodeTopic(node.nodeId),
            }),
          )
        }
      >
        <p>
          Porthole forgets the saved node <span className="resource-name">{node.name}</span> (
          <code>{node.endpoint}</code>)
          {node.state === 'connected' ? ' and disconnects from it' : ''}. Nothing on the node
          changes.
        </p>
      </ConfirmDialog>
    ),
  });
}

export function versionCommand(node: NodeStatus): string {
  // crictl runs on the node: for an SSH node that is the socket on the node, not ssh://….
  const endpoint =
    node.kind === 'ssh'
      ? (node.runtimeEndpoint ?? 'unix:///run/containerd/containerd.sock')
      : node.endpoint;
  return crictlCommand({ endpoint, timeoutMs: node.profile?.timeoutMs }, { kind: 'version' });
}
