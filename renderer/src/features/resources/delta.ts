import type { ResourceDelta } from '../../../../shared/model';
import { resourceKey, type ItemsByKind, type ResourceKind } from './model';

/**
 * Every connected node's resources, keyed by `resourceKey(nodeId, id)`; by kind, so that
 * `index[kind]` is typed for a kind only known as a type parameter.
 */
export type ResourceIndex = {
  readonly [K in ResourceKind]: ReadonlyMap<string, ItemsByKind[K]>;
};

export const emptyIndex: ResourceIndex = {
  pods: new Map(),
  containers: new Map(),
  images: new Map(),
};

/** Deep equality for the plain JSON data the runtime sends. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  return aKeys.every((key) => Object.hasOwn(bRecord, key) && sameData(aRecord[key], bRecord[key]));
}

interface KindChange<T> {
  readonly upserted: readonly T[];
  readonly removed: readonly string[];
}

/**
 * Applies one kind's part of a delta. Returns the same map when nothing changed, and keeps
 * the previous object for an item that came back equal: memoised rows then skip
 * re-rendering, which is what keeps a reset from flickering the table.
 */
function applyKind<T extends { readonly nodeId: string; readonly id: string }>(
  current: ReadonlyMap<string, T>,
  nodeId: string,
  change: KindChange<T>,
  reset: boolean,
): ReadonlyMap<string, T> {
  let next: Map<string, T> | undefined;
  const writable = (): Map<string, T> => (next ??= new Map(current));

  if (reset) {
    const kept = new Set(change.upserted.map((item) => resourceKey(nodeId, item.id)));
    for (const [key, item] of current) {
      if (item.nodeId === nodeId && !kept.has(key)) writable().delete(key);
    }
  }
  for (const id of change.removed) {
    const key = resourceKey(nodeId, id);
    if (current.has(key)) writable().delete(key);
  }
  for (const item of change.upserted) {
    const key = resourceKey(nodeId, item.id);
    const previous = current.get(key);
    // Tag the item with the delta's node: the table keys rows by it.
    const tagged = item.nodeId === nodeId ? item : { ...item, nodeId };
    if (previous !== undefined && sameData(previous, tagged)) continue;
    writable().set(key, tagged);
  }
  return next ?? current;
}

export function applyDelta(index: ResourceIndex, delta: ResourceDelta): ResourceIndex {
  const pods = applyKind(index.pods, delta.nodeId, delta.pods, delta.reset);
  const containers = applyKind(index.containers, delta.nodeId, delta.containers, delta.reset);
  const images = applyKind(index.images, delta.nodeId, delta.images, delta.reset);
  if (pods === index.pods && containers === index.containers && images === index.images) {
    return index;
  }
  return { pods, containers, images };
}

function withoutNode<T extends { readonly nodeId: string }>(
  map: ReadonlyMap<string, T>,
  nodeId: string,
): ReadonlyMap<string, T> {
  let next: Map<string, T> | undefined;
  for (const [key, item] of map) {
    if (item.nodeId === nodeId) (next ??= new Map(map)).delete(key);
  }
  return next ?? map;
}

/** Forgets a node's resources (it was disconnected or removed). */
export function dropNode(index: ResourceIndex, nodeId: string): ResourceIndex {
  const pods = withoutNode(index.pods, nodeId);
  const containers = withoutNode(index.containers, nodeId);
  const images = withoutNode(index.images, nodeId);
  if (pods === index.pods && containers === index.containers && images === index.images) {
    return index;
  }
  return { pods, containers, images };
}
