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
  if (delta.removed.length === 0) {
    const replaced = replaceInPlace(current, delta.upserted);
    if (replaced !== undefined) return replaced;
  }
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

/**
 * Each list's positions by node id, made once and handed on to the lists made from it by
 * replacing nodes in place: a fleet's changes come one node at a time, and each then costs
 * a copy of the list, not a map of it.
 */
const positions = new WeakMap<readonly NodeStatus[], ReadonlyMap<string, number>>();

/** The list with each status in its node's place; undefined when one is a new node. */
function replaceInPlace(
  current: readonly NodeStatus[],
  upserted: readonly NodeStatus[],
): readonly NodeStatus[] | undefined {
  let at = positions.get(current);
  if (at === undefined) {
    at = new Map(current.map((node, index) => [node.nodeId, index]));
    positions.set(current, at);
  }
  const next = current.slice();
  for (const status of upserted) {
    const index = at.get(status.nodeId);
    if (index === undefined) return undefined;
    next[index] = status;
  }
  positions.set(next, at);
  return next;
}

/** A `nodes` reset of `nodes` (every node, in one message). */
export function nodesReset(nodes: readonly NodeStatus[]): NodesDelta {
  return { reset: true, upserted: nodes, removed: [] };
}
