import type { NodeStatus, StringMap } from '../../../../shared/model';
import { mapChangeOf, type ResourceIndex } from './delta';
import { resorted, rowOrder, sortRows, type SortState } from './sort';
import {
  resourceKey,
  type ContainerItem,
  type ContainerRow,
  type ImageItem,
  type ImageRow,
  type PodItem,
  type PodRow,
  type ResourceKind,
  type RowsByKind,
} from './model';

/** Kubelet labels that name a container's pod when the pod itself is not known. */
const podNameLabel = 'io.kubernetes.pod.name';
const podNamespaceLabel = 'io.kubernetes.pod.namespace';

function labelText(labels: StringMap): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

/**
 * How an array of rows was made from the one before it: the rows that left it and the
 * rows that joined it (a changed row is both: its old object left, its new one joined).
 * Only the latest step is kept, as with the index's maps.
 */
export interface RowsChange<R> {
  readonly from: readonly R[];
  readonly removed: readonly R[];
  readonly added: readonly R[];
}

const rowsChanges = new WeakMap<readonly unknown[], RowsChange<unknown>>();

/** How `rows` was made from the array before it, when a RowCache made it. */
export function rowsChangeOf<R>(rows: readonly R[]): RowsChange<R> | undefined {
  return rowsChanges.get(rows) as RowsChange<R> | undefined;
}

function recordRowsChange<R>(change: RowsChange<R>, to: readonly R[]): void {
  rowsChanges.delete(change.from);
  rowsChanges.set(to, change);
}

/**
 * What changed between two arrays of the same rows: from the record when `to` was made
 * from `from`, else by identity (a pass over each, far cheaper than sorting them again).
 */
export function rowsChange<R>(from: readonly R[], to: readonly R[]): RowsChange<R> {
  const recorded = rowsChangeOf(to);
  if (recorded?.from === from) return recorded;
  const before = new Set(from);
  const after = new Set(to);
  return {
    from,
    removed: from.filter((row) => !after.has(row)),
    added: to.filter((row) => !before.has(row)),
  };
}

/**
 * Past this share of the rows changed, rebuilding or sorting afresh is as cheap as
 * patching (a fleet's first snapshots, a node reset).
 */
function worthPatching(changed: number, rows: number): boolean {
  return changed <= Math.max(64, rows / 8);
}

/** Rows in their map's order, and where each key's row is. */
interface Built<R> {
  readonly rows: R[];
  readonly positions: Map<string, number>;
}

interface BuiltPods extends Built<PodRow> {
  readonly index: ResourceIndex;
  /** Containers and running containers per pod key, for the rows' counts. */
  readonly counts: Map<string, { total: number; running: number }>;
}

function positionsOf<R extends { readonly key: string }>(rows: readonly R[]): Map<string, number> {
  return new Map(rows.map((row, at) => [row.key, at]));
}

/**
 * `built` with the rows of `keys` made again (`rowOf`: undefined when the key is gone): a
 * kept key keeps its place, a new one goes last, as in the map (a key deleted and added
 * again in one batch keeps its place here and goes last there; the tables sort, so only
 * unsorted lists like a pod's containers could see the difference). Mutates
 * `built.positions`, which only the latest build owns.
 */
function patch<R extends { readonly key: string }>(
  built: Built<R>,
  keys: Iterable<string>,
  rowOf: (key: string) => R | undefined,
): Built<R> & { readonly change: RowsChange<R> } {
  const rows = built.rows.slice();
  const { positions } = built;
  const removed: R[] = [];
  const added: R[] = [];
  let deleted = false;
  for (const key of keys) {
    const at = positions.get(key);
    const row = rowOf(key);
    const old = at === undefined ? undefined : rows[at];
    if (old === row) continue;
    if (old !== undefined) removed.push(old);
    if (row !== undefined) added.push(row);
    if (at === undefined) {
      if (row !== undefined) positions.set(key, rows.push(row) - 1);
    } else if (row === undefined) {
      positions.delete(key);
      deleted = true;
    } else {
      rows[at] = row;
    }
  }
  if (!deleted) return { rows, positions, change: { from: built.rows, removed, added } };
  // A deleted key's old row is still in place; every other row's key has a position.
  const kept = rows.filter((row) => positions.get(row.key) !== undefined);
  return {
    rows: kept,
    positions: positionsOf(kept),
    change: { from: built.rows, removed, added },
  };
}

/**
 * Remembers the row built for each item, so an unchanged item keeps its row object across
 * updates and memoised table rows don't re-render.
 */
export class RowCache {
  private readonly pods = new WeakMap<PodItem, PodRow>();
  private readonly containers = new WeakMap<ContainerItem, ContainerRow>();
  private readonly images = new WeakMap<ImageItem, ImageRow>();
  /** The last result per kind and the maps it was built from: many views ask at once. */
  private readonly last = new Map<string, { deps: readonly unknown[]; rows: unknown[] }>();
  private lastPods: BuiltPods | undefined;
  private lastContainers: (Built<ContainerRow> & { readonly index: ResourceIndex }) | undefined;
  /** The last sort per kind: the rows it sorted, how, and the answer. */
  private readonly lastSorted = new Map<
    ResourceKind,
    { readonly rows: readonly unknown[]; readonly sort: SortState; readonly sorted: unknown[] }
  >();

  private memo<T>(kind: string, deps: readonly unknown[], build: () => T[]): T[] {
    const previous = this.last.get(kind);
    if (previous !== undefined && previous.deps.every((dep, i) => dep === deps[i])) {
      return previous.rows as T[];
    }
    const rows = build();
    this.last.set(kind, { deps, rows });
    return rows;
  }

  /**
   * Rows sorted for a table, remembered per kind: switching views, or a keystroke in the
   * filter, reuses the sort instead of redoing it. When the rows changed by a few since
   * the last sort, those few are moved in the last answer (`resorted`), and the answer
   * records what changed (`rowsChangeOf`) for the filter after it.
   */
  sorted<K extends ResourceKind>(
    kind: K,
    rows: readonly RowsByKind[K][],
    sort: SortState,
  ): RowsByKind[K][] {
    const last = this.lastSorted.get(kind) as
      { rows: readonly RowsByKind[K][]; sort: SortState; sorted: RowsByKind[K][] } | undefined;
    const sameSort =
      last !== undefined &&
      last.sort.column === sort.column &&
      last.sort.direction === sort.direction;
    if (sameSort && last.rows === rows) return last.sorted;
    let sorted: RowsByKind[K][] | undefined;
    if (sameSort && worthPatching(Math.abs(rows.length - last.rows.length), rows.length)) {
      const change = rowsChange(last.rows, rows);
      if (worthPatching(change.removed.length + change.added.length, rows.length)) {
        sorted = resorted(last.sorted, change.removed, change.added, rowOrder(kind, sort));
        if (sorted !== undefined) {
          recordRowsChange(
            { from: last.sorted, removed: change.removed, added: change.added },
            sorted,
          );
        }
      }
    }
    sorted ??= sortRows(kind, rows, sort);
    this.lastSorted.set(kind, { rows, sort, sorted });
    return sorted;
  }

  podRows(index: ResourceIndex): PodRow[] {
    const last = this.lastPods;
    if (last?.index.pods === index.pods && last.index.containers === index.containers) {
      return last.rows;
    }
    const patched = last === undefined ? undefined : this.patchPodRows(last, index);
    if (last !== undefined && patched !== undefined) {
      recordRowsChange(patched.change, patched.rows);
      const { rows, positions } = patched;
      this.lastPods = { rows, positions, index, counts: last.counts };
      return rows;
    }
    const counts = containerCounts(index);
    const rows = [...index.pods].map(([key, pod]) => this.podRow(key, pod, counts.get(key)));
    this.lastPods = { rows, positions: positionsOf(rows), index, counts };
    return rows;
  }

  /** The pod rows again for the pods and containers that changed, when few did. */
  private patchPodRows(
    last: BuiltPods,
    index: ResourceIndex,
  ): ReturnType<typeof patch<PodRow>> | undefined {
    const pods = index.pods === last.index.pods ? undefined : mapChangeOf(index.pods);
    const containers =
      index.containers === last.index.containers ? undefined : mapChangeOf(index.containers);
    // Each map is the one the rows were built from, or made from it in one step.
    if (index.pods !== last.index.pods && pods?.madeFrom(last.index.pods) !== true) {
      return undefined;
    }
    if (
      index.containers !== last.index.containers &&
      containers?.madeFrom(last.index.containers) !== true
    ) {
      return undefined;
    }
    const changed = (pods?.before.size ?? 0) + (containers?.before.size ?? 0);
    if (!worthPatching(changed, last.rows.length)) return undefined;
    const affected = new Set(pods?.before.keys());
    const { counts } = last;
    const count = (container: ContainerItem | undefined, by: 1 | -1): void => {
      if (container === undefined) return;
      const podKey = resourceKey(container.nodeId, container.podSandboxId);
      const entry = counts.get(podKey) ?? { total: 0, running: 0 };
      entry.total += by;
      if (container.state === 'running') entry.running += by;
      if (entry.total === 0) counts.delete(podKey);
      else counts.set(podKey, entry);
      affected.add(podKey);
    };
    for (const [key, before] of containers?.before ?? []) {
      count(before, -1);
      count(index.containers.get(key), 1);
    }
    return patch(last, affected, (key) => {
      const pod = index.pods.get(key);
      return pod === undefined ? undefined : this.podRow(key, pod, counts.get(key));
    });
  }

  containerRows(index: ResourceIndex): ContainerRow[] {
    const last = this.lastContainers;
    if (last?.index.containers === index.containers && last.index.pods === index.pods) {
      return last.rows;
    }
    // A pod that changed may rename its containers' pod: only the containers are patched.
    const change = last?.index.pods === index.pods ? mapChangeOf(index.containers) : undefined;
    if (
      last !== undefined &&
      change?.madeFrom(last.index.containers) === true &&
      worthPatching(change.before.size, last.rows.length)
    ) {
      const patched = patch(last, change.before.keys(), (key) => {
        const container = index.containers.get(key);
        return container === undefined ? undefined : this.containerRow(key, container, index);
      });
      recordRowsChange(patched.change, patched.rows);
      this.lastContainers = { rows: patched.rows, positions: patched.positions, index };
      return patched.rows;
    }
    const rows = [...index.containers].map(([key, container]) =>
      this.containerRow(key, container, index),
    );
    this.lastContainers = { rows, positions: positionsOf(rows), index };
    return rows;
  }

  /**
   * `sandboxImages`: each node's sandbox image as its runtime reports it
   * (`RuntimeInfo.sandboxImage`), by node id.
   */
  imageRows(
    index: ResourceIndex,
    sandboxImages: ReadonlyMap<string, string> = new Map(),
  ): ImageRow[] {
    const key = [...sandboxImages].map(([node, image]) => `${node}=${image}`).join('\n');
    return this.memo('images', [index.images, index.containers, index.pods, key], () =>
      this.buildImageRows(index, sandboxImages),
    );
  }

  private podRow(
    key: string,
    pod: PodItem,
    count: { readonly total: number; readonly running: number } | undefined,
  ): PodRow {
    const containerCount = count?.total ?? 0;
    const runningCount = count?.running ?? 0;
    const cached = this.pods.get(pod);
    if (
      cached !== undefined &&
      cached.containerCount === containerCount &&
      cached.runningCount === runningCount
    ) {
      return cached;
    }
    const row: PodRow = {
      ...pod,
      key,
      containerCount,
      runningCount,
      search: [pod.name, pod.namespace, pod.id, pod.uid, pod.state, labelText(pod.labels)]
        .join(' ')
        .toLowerCase(),
    };
    this.pods.set(pod, row);
    return row;
  }

  private containerRow(key: string, container: ContainerItem, index: ResourceIndex): ContainerRow {
    const podKey = resourceKey(container.nodeId, container.podSandboxId);
    const pod = index.pods.get(podKey);
    const podName = pod?.name ?? container.labels[podNameLabel] ?? '';
    const namespace = pod?.namespace ?? container.labels[podNamespaceLabel] ?? '';
    const cached = this.containers.get(container);
    if (cached !== undefined && cached.podName === podName && cached.namespace === namespace) {
      return cached;
    }
    const row: ContainerRow = {
      ...container,
      key,
      podKey,
      podName,
      namespace,
      search: [
        container.name,
        container.id,
        container.image,
        container.state,
        podName,
        namespace,
        labelText(container.labels),
      ]
        .join(' ')
        .toLowerCase(),
    };
    this.containers.set(container, row);
    return row;
  }

  private buildImageRows(
    index: ResourceIndex,
    sandboxImages: ReadonlyMap<string, string>,
  ): ImageRow[] {
    const usage = new Map<string, number>();
    const podsByNode = new Map<string, number>();
    for (const pod of index.pods.values()) {
      podsByNode.set(pod.nodeId, (podsByNode.get(pod.nodeId) ?? 0) + 1);
    }
    const sandboxImage = sandboxImageKeys(index, sandboxImages);
    const count = (key: string): void => {
      usage.set(key, (usage.get(key) ?? 0) + 1);
    };
    for (const container of index.containers.values()) {
      count(resourceKey(container.nodeId, container.imageRef));
      // Some runtimes report the reference the user asked for rather than the image id.
      if (container.image !== container.imageRef) {
        count(resourceKey(container.nodeId, `tag:${container.image}`));
      }
    }
    const rows: ImageRow[] = [];
    for (const [key, image] of index.images) {
      const byId = usage.get(resourceKey(image.nodeId, image.id)) ?? 0;
      const byTag = image.repoTags.reduce(
        (sum, tag) => sum + (usage.get(resourceKey(image.nodeId, `tag:${tag}`)) ?? 0),
        0,
      );
      const usedBy = Math.max(byId, byTag);
      const sandboxes = sandboxImage.has(key) ? (podsByNode.get(image.nodeId) ?? 0) : 0;
      const cached = this.images.get(image);
      if (cached !== undefined && cached.usedBy === usedBy && cached.sandboxes === sandboxes) {
        rows.push(cached);
        continue;
      }
      const row: ImageRow = {
        ...image,
        key,
        displayName: image.repoTags[0] ?? image.repoDigests[0] ?? image.id,
        usedBy,
        sandboxes,
        search: [...image.repoTags, ...image.repoDigests, image.id].join(' ').toLowerCase(),
      };
      this.images.set(image, row);
      rows.push(row);
    }
    return rows;
  }
}

/** Containers and running containers per pod key. */
function containerCounts(index: ResourceIndex): Map<string, { total: number; running: number }> {
  const counts = new Map<string, { total: number; running: number }>();
  for (const container of index.containers.values()) {
    const podKey = resourceKey(container.nodeId, container.podSandboxId);
    const count = counts.get(podKey) ?? { total: 0, running: 0 };
    count.total += 1;
    if (container.state === 'running') count.running += 1;
    counts.set(podKey, count);
  }
  return counts;
}

/**
 * The keys of the images pod sandboxes run from, one per node: the image the runtime
 * names (by tag, digest or id), else the node's only pinned image (containerd 2.x and
 * CRI-O pin their sandbox image and don't name it). Unknown when neither says.
 */
function sandboxImageKeys(
  index: ResourceIndex,
  sandboxImages: ReadonlyMap<string, string>,
): Set<string> {
  const pinned = new Map<string, string[]>();
  const named = new Set<string>();
  for (const [key, image] of index.images) {
    const reference = sandboxImages.get(image.nodeId);
    if (reference === undefined) {
      if (image.pinned) pinned.set(image.nodeId, [...(pinned.get(image.nodeId) ?? []), key]);
    } else if (
      image.id === reference ||
      image.repoTags.includes(reference) ||
      image.repoDigests.includes(reference)
    ) {
      named.add(key);
    }
  }
  for (const keys of pinned.values())
    if (keys.length === 1 && keys[0] !== undefined) named.add(keys[0]);
  return named;
}

const sandboxImageCache = new WeakMap<readonly NodeStatus[], ReadonlyMap<string, string>>();

/** Each node's sandbox image as its runtime names it, by node id (built once per list). */
export function sandboxImagesOf(nodes: readonly NodeStatus[]): ReadonlyMap<string, string> {
  let images = sandboxImageCache.get(nodes);
  if (images === undefined) {
    images = new Map(
      nodes.flatMap((node) =>
        node.runtime?.sandboxImage === undefined ? [] : [[node.nodeId, node.runtime.sandboxImage]],
      ),
    );
    sandboxImageCache.set(nodes, images);
  }
  return images;
}
