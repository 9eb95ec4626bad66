import { memo } from 'react';
import { useNodes } from '../../app/context';
import type { NodeStatus } from '../../../../shared/model';
import { nodeLabels } from './node-labels';
import { nodeOptionLabel } from './nodes-store';

/**
 * A node in a table cell: its short label (what sets it apart from the other nodes), the
 * full name and endpoint on hover. `fallback` names a node Porthole no longer knows (an
 * ended session's).
 */
export const NodeLabel = memo(function NodeLabel({
  nodeId,
  fallback,
}: {
  nodeId: string;
  fallback?: string;
}) {
  const node = useNodes((state) => state.nodes.find((candidate) => candidate.nodeId === nodeId));
  const label = useNodes((state) => nodeLabels(state.nodes).get(nodeId));
  const name = node?.name ?? fallback ?? nodeId;
  return (
    <span className="node-label" title={node === undefined ? name : `${name}\n${node.endpoint}`}>
      {label ?? name}
    </span>
  );
});

/** Nodes as the options of a node picker: one each, named as the pickers name them. */
export function NodeOptions({ nodes }: { nodes: readonly NodeStatus[] }) {
  return nodes.map((node) => (
    <option key={node.nodeId} value={node.nodeId}>
      {nodeOptionLabel(node)}
    </option>
  ));
}
