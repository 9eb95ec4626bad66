import type {
  Container,
  ContainerState,
  Image,
  OnNode,
  PodSandbox,
  PodState,
} from '../../../../shared/model';

/** The three resource tables, in sidebar order. */
export type ResourceKind = 'pods' | 'containers' | 'images';
export const resourceKinds: readonly ResourceKind[] = ['pods', 'containers', 'images'];

export type PodItem = OnNode<PodSandbox>;
export type ContainerItem = OnNode<Container>;
export type ImageItem = OnNode<Image>;

/** What the runtime lists of each kind, as the store keeps it. */
export interface ItemsByKind {
  readonly pods: PodItem;
  readonly containers: ContainerItem;
  readonly images: ImageItem;
}

/**
 * Runtime ids are only unique per runtime: two nodes may hold the same image id, so every
 * resource is keyed by its node as well.
 */
export function resourceKey(nodeId: string, id: string): string {
  return `${nodeId}\u0000${id}`;
}

export function splitResourceKey(key: string): { nodeId: string; id: string } {
  const at = key.indexOf('\u0000');
  return at < 0 ? { nodeId: '', id: key } : { nodeId: key.slice(0, at), id: key.slice(at + 1) };
}

/** Rows as the tables show them: the runtime's data plus what other tables know. */
export interface PodRow extends PodItem {
  readonly key: string;
  readonly containerCount: number;
  readonly runningCount: number;
  /** Lower-cased text the free-text filter searches. */
  readonly search: string;
}

export interface ContainerRow extends ContainerItem {
  readonly key: string;
  readonly podKey: string;
  /** Empty when the pod is unknown (e.g. it was removed while the container lingers). */
  readonly podName: string;
  readonly namespace: string;
  readonly search: string;
}

export interface ImageRow extends ImageItem {
  readonly key: string;
  /** The first tag, else the first digest, else the id: what people call the image. */
  readonly displayName: string;
  /** Containers on the same node that use this image. */
  readonly usedBy: number;
  /**
   * Pod sandboxes on the same node that run from it: the runtime's sandbox (pause) image
   * backs every pod, though no container names it.
   */
  readonly sandboxes: number;
  readonly search: string;
}

export interface RowsByKind {
  readonly pods: PodRow;
  readonly containers: ContainerRow;
  readonly images: ImageRow;
}

export type AnyRow = RowsByKind[ResourceKind];

/** The states each table can filter on, in the order the filter menu lists them. */
export const statesByKind: { readonly [K in ResourceKind]: readonly string[] } = {
  pods: ['ready', 'notready'] satisfies PodState[],
  containers: ['running', 'created', 'exited', 'unknown'] satisfies ContainerState[],
  images: ['in use', 'unused', 'pinned'],
};

export function shortId(id: string): string {
  const bare = id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
  return bare.slice(0, 13);
}
