import type { NodeStatus, NodesDelta } from './node';

/**
 * Folds a `nodes` event into the list it changes: a reset replaces the list, upserts
 * replace their node in place (a new node goes last), removals drop theirs. The list keeps
 * the core's order. Returns the list itself when nothing changed.
 */
export function applyNodesDelta(
  current: readonly NodeStatus[],
  delta: NodesDelta,
): readonly NodeStatus[] {
  if (delta.reset) return delta.upserted;
  if (delta.upserted.length === 0 && delta.removed.length === 0) return current;
  const upserts = new Map(delta.upserted.map((status) => [status.nodeId, status]));
  const removed = new Set(delta.removed);
  const next: NodeStatus[] = [];
  for (const node of current) {
    if (removed.has(node.nodeId)) continue;
    const replacement = upserts.get(node.nodeId);
    upserts.delete(node.nodeId);
    next.push(replacement ?? node);
  }
  next.push(...upserts.values());
  return next;
}

/** A `nodes` reset of `nodes` (every node, in one message). */
export function nodesReset(nodes: readonly NodeStatus[]): NodesDelta {
  return { reset: true, upserted: nodes, removed: [] };
}
