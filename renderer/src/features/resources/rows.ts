import type { NodeStatus, StringMap } from '../../../../shared/model';
import type { ResourceIndex } from './delta';
import { sortRows, type SortState } from './sort';
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
 * Remembers the row built for each item, so an unchanged item keeps its row object across
 * updates and memoised table rows don't re-render.
 */
export class RowCache {
  private readonly pods = new WeakMap<PodItem, PodRow>();
  private readonly containers = new WeakMap<ContainerItem, ContainerRow>();
  private readonly images = new WeakMap<ImageItem, ImageRow>();
  /** The last result per kind and the maps it was built from: many views ask at once. */
  private readonly last = new Map<string, { deps: readonly unknown[]; rows: unknown[] }>();

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
   * filter, reuses the sort instead of redoing it.
   */
  sorted<K extends ResourceKind>(
    kind: K,
    rows: readonly RowsByKind[K][],
    sort: SortState,
  ): RowsByKind[K][] {
    return this.memo(`sorted:${kind}`, [rows, sort.column, sort.direction], () =>
      sortRows(kind, rows, sort),
    );
  }

  podRows(index: ResourceIndex): PodRow[] {
    return this.memo('pods', [index.pods, index.containers], () => this.buildPodRows(index));
  }

  containerRows(index: ResourceIndex): ContainerRow[] {
    return this.memo('containers', [index.containers, index.pods], () =>
      this.buildContainerRows(index),
    );
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

  private buildPodRows(index: ResourceIndex): PodRow[] {
    const counts = new Map<string, { total: number; running: number }>();
    for (const container of index.containers.values()) {
      const podKey = resourceKey(container.nodeId, container.podSandboxId);
      const count = counts.get(podKey) ?? { total: 0, running: 0 };
      count.total += 1;
      if (container.state === 'running') count.running += 1;
      counts.set(podKey, count);
    }
    const rows: PodRow[] = [];
    for (const [key, pod] of index.pods) {
      const count = counts.get(key);
      const containerCount = count?.total ?? 0;
      const runningCount = count?.running ?? 0;
      const cached = this.pods.get(pod);
      if (
        cached !== undefined &&
        cached.containerCount === containerCount &&
        cached.runningCount === runningCount
      ) {
        rows.push(cached);
        continue;
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
      rows.push(row);
    }
    return rows;
  }

  private buildContainerRows(index: ResourceIndex): ContainerRow[] {
    const rows: ContainerRow[] = [];
    for (const [key, container] of index.containers) {
      const podKey = resourceKey(container.nodeId, container.podSandboxId);
      const pod = index.pods.get(podKey);
      const podName = pod?.name ?? container.labels[podNameLabel] ?? '';
      const namespace = pod?.namespace ?? container.labels[podNamespaceLabel] ?? '';
      const cached = this.containers.get(container);
      if (cached !== undefined && cached.podName === podName && cached.namespace === namespace) {
        rows.push(cached);
        continue;
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
      rows.push(row);
    }
    return rows;
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
