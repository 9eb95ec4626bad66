import { useId, useState } from 'react';
import { toAppErrorData } from '../../../../shared/errors';
import type { ForwardEntry } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { Dialog, FormActions } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import { NodeOptions } from '../nodes/NodeLabel';
import { forwardsOf, withPending } from './store';

/**
 * "Move web to another node": for a forward whose node was removed (or any other). Every
 * node Porthole knows is offered, connected or not: a forward moved to a node that is not
 * connected starts there once it is (auto-start) or when the user starts it.
 */
export function MoveForwardDialog({
  entry,
  nodeName,
  onClose,
}: {
  entry: ForwardEntry;
  /** Where it is now, as the row shows it. */
  nodeName: string;
  onClose: () => void;
}) {
  const model = useModel();
  const id = useId();
  const nodes = useNodes((state) => state.nodes).filter((node) => node.nodeId !== entry.nodeId);
  const connected = nodes.find((node) => node.state === 'connected');
  const [nodeId, setNodeId] = useState(connected?.nodeId ?? nodes[0]?.nodeId ?? '');
  const target = nodes.find((node) => node.nodeId === nodeId);
  const move = (): void => {
    if (target === undefined) return;
    onClose();
    void withPending(forwardsOf(model), entry.id, 'moving', () =>
      model.client.services.forwards.move(entry.id, target.nodeId),
    ).then(
      () =>
        model.toasts
          .getState()
          .show({ tone: 'success', title: `Moved ${entry.name} to ${target.name}` }),
      (error: unknown) =>
        model.toasts.getState().show({
          tone: 'error',
          title: `Could not move ${entry.name}`,
          error: toAppErrorData(error),
        }),
    );
  };
  return (
    <Dialog
      title={`Move ${entry.name} to another node`}
      onClose={onClose}
      onSubmit={move}
      footer={<FormActions submitLabel="Move" onCancel={onClose} disabled={target === undefined} />}
    >
      <p>
        It is on <span className="resource-name">{nodeName}</span>. Its name, ports and saving stay
        as they are; it starts on the new node if it was running
        {entry.autoStart ? ', and whenever that node connects' : ''}.
      </p>
      {nodes.length === 0 ? (
        <p className="muted">There is no other node. Add one on the Nodes page first.</p>
      ) : (
        <Field id={`${id}-node`} label="Node">
          <select
            id={`${id}-node`}
            className="select"
            data-autofocus
            value={nodeId}
            onChange={(event) => setNodeId(event.target.value)}
          >
            <NodeOptions nodes={nodes} />
          </select>
        </Field>
      )}
    </Dialog>
  );
}
