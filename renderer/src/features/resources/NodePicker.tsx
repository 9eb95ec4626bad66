import { useNodes } from '../../app/context';
import { NodeOptions } from '../nodes/NodeLabel';
import { isFollowed } from '../nodes/nodes-store';

/**
 * Which connected node an action goes to; defaults to the scoped node. With `withDown`
 * (a view, not an action), reconnecting nodes are listed too, marked as such.
 */
export function NodePicker({
  id,
  value,
  onChange,
  withDown = false,
}: {
  id: string;
  value: string;
  onChange: (nodeId: string) => void;
  withDown?: boolean;
}) {
  const nodes = useNodes((state) => state.nodes);
  const connected = nodes.filter((node) =>
    withDown ? isFollowed(node) : node.state === 'connected',
  );
  return (
    <select
      id={id}
      className="select"
      value={value}
      onChange={(event) => onChange(event.target.value)}
    >
      {connected.length === 0 && <option value="">No node connected</option>}
      <NodeOptions nodes={connected} />
    </select>
  );
}

/** The node an action should default to: the one in scope, else the first connected. */
export function defaultNodeId(
  nodes: readonly { nodeId: string; state: string }[],
  scope: { kind: 'all' } | { kind: 'node'; nodeId: string },
): string {
  const connected = nodes.filter((node) => node.state === 'connected');
  if (scope.kind === 'node' && connected.some((node) => node.nodeId === scope.nodeId)) {
    return scope.nodeId;
  }
  return connected[0]?.nodeId ?? '';
}
