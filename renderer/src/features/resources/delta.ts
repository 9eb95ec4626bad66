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

/**
 * How a kind's map was made from the map before it: the keys written or deleted, and
 * what they held before. RowCache uses it to rebuild only the rows that changed. The map
 * before is held weakly (so no chain of old maps stays alive), and a map's record is
 * dropped when the next map is made from it.
 */
export interface MapChange<T> {
  /** Whether this change was made from `map`. */
  madeFrom(map: ReadonlyMap<string, T>): boolean;
  /** Each key written or deleted → its item before (undefined: it is new). */
  readonly before: ReadonlyMap<string, T | undefined>;
}

const mapChanges = new WeakMap<ReadonlyMap<string, unknown>, MapChange<unknown>>();

/** How `map` was made from the one before it, when the index made it. */
export function mapChangeOf<T>(map: ReadonlyMap<string, T>): MapChange<T> | undefined {
  return mapChanges.get(map) as MapChange<T> | undefined;
}

function recordChange<T>(
  from: ReadonlyMap<string, T>,
  to: ReadonlyMap<string, T>,
  before: ReadonlyMap<string, T | undefined>,
): void {
  const previous = new WeakRef(from);
  mapChanges.delete(from);
  mapChanges.set(to, { madeFrom: (map) => previous.deref() === map, before });
}

interface KindChange<T> {
  readonly upserted: readonly T[];
  readonly removed: readonly string[];
}

/**
 * Folds one kind's part of a batch of deltas into its map: the map is copied at most once
 * per batch, and the resets in it cost one pass over the map together, not one each
 * (a fleet's first snapshots arrive 500 at a time). Unchanged maps stay the same object,
 * and an item that came back equal keeps its previous object: memoised rows then skip
 * re-rendering, which is what keeps a reset from flickering the table.
 */
class KindBatch<T extends { readonly nodeId: string; readonly id: string }> {
  private next: Map<string, T> | undefined;
  /** The keys written or deleted → what they held before the batch. */
  private readonly before = new Map<string, T | undefined>();
  /** Nodes reset in this batch → the keys the node holds since its reset. */
  private readonly resets = new Map<string, Set<string>>();

  constructor(private readonly current: ReadonlyMap<string, T>) {}

  private writable(): Map<string, T> {
    return (this.next ??= new Map(this.current));
  }

  private changed(key: string): void {
    if (!this.before.has(key)) this.before.set(key, this.current.get(key));
  }

  private get map(): ReadonlyMap<string, T> {
    return this.next ?? this.current;
  }

  apply(nodeId: string, change: KindChange<T>, reset: boolean): void {
    if (reset) this.resets.set(nodeId, new Set());
    const kept = this.resets.get(nodeId);
    for (const id of change.removed) {
      const key = resourceKey(nodeId, id);
      kept?.delete(key);
      if (this.map.has(key)) {
        this.writable().delete(key);
        this.changed(key);
      }
    }
    for (const item of change.upserted) {
      const key = resourceKey(nodeId, item.id);
      kept?.add(key);
      const previous = this.map.get(key);
      // Tag the item with the delta's node: the table keys rows by it.
      const tagged = item.nodeId === nodeId ? item : { ...item, nodeId };
      if (previous !== undefined && sameData(previous, tagged)) continue;
      this.writable().set(key, tagged);
      this.changed(key);
    }
  }

  result(): ReadonlyMap<string, T> {
    if (this.resets.size > 0) {
      // What a reset node held before and no longer has: gone.
      for (const [key, item] of this.map) {
        const kept = this.resets.get(item.nodeId);
        if (kept !== undefined && !kept.has(key)) {
          this.writable().delete(key);
          this.changed(key);
        }
      }
    }
    if (this.next !== undefined) recordChange(this.current, this.next, this.before);
    return this.map;
  }
}

/** Folds deltas, in order, into the index; the same index when nothing changed. */
export function applyDeltas(index: ResourceIndex, deltas: readonly ResourceDelta[]): ResourceIndex {
  const pods = new KindBatch(index.pods);
  const containers = new KindBatch(index.containers);
  const images = new KindBatch(index.images);
  for (const delta of deltas) {
    pods.apply(delta.nodeId, delta.pods, delta.reset);
    containers.apply(delta.nodeId, delta.containers, delta.reset);
    images.apply(delta.nodeId, delta.images, delta.reset);
  }
  const next = { pods: pods.result(), containers: containers.result(), images: images.result() };
  if (
    next.pods === index.pods &&
    next.containers === index.containers &&
    next.images === index.images
  ) {
    return index;
  }
  return next;
}

export function applyDelta(index: ResourceIndex, delta: ResourceDelta): ResourceIndex {
  return applyDeltas(index, [delta]);
}

function withoutNode<T extends { readonly nodeId: string }>(
  map: ReadonlyMap<string, T>,
  nodeId: string,
): ReadonlyMap<string, T> {
  let next: Map<string, T> | undefined;
  const before = new Map<string, T>();
  for (const [key, item] of map) {
    if (item.nodeId === nodeId) {
      (next ??= new Map(map)).delete(key);
      before.set(key, item);
    }
  }
  if (next === undefined) return map;
  recordChange(map, next, before);
  return next;
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
