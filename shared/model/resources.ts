import type { Container } from './container';
import type { Image } from './image';
import type { PodSandbox } from './pod';

/** Resources tagged with the node they live on, so several nodes can share one table. */
export type OnNode<T> = T & { readonly nodeId: string };

/** One node's pods, containers and images at one moment. */
export interface NodeResources {
  readonly nodeId: string;
  readonly pods: readonly OnNode<PodSandbox>[];
  readonly containers: readonly OnNode<Container>[];
  readonly images: readonly OnNode<Image>[];
  /** When the runtime was last read (ms since the epoch). */
  readonly updatedAt: number;
}

/**
 * A change to one node's resources: what appeared or changed, and the ids that went away.
 * The first message of a subscription carries everything as `upserted`, `reset: true`.
 */
export interface ResourceDelta {
  readonly nodeId: string;
  readonly reset: boolean;
  readonly pods: {
    readonly upserted: readonly OnNode<PodSandbox>[];
    readonly removed: readonly string[];
  };
  readonly containers: {
    readonly upserted: readonly OnNode<Container>[];
    readonly removed: readonly string[];
  };
  readonly images: {
    readonly upserted: readonly OnNode<Image>[];
    readonly removed: readonly string[];
  };
  readonly updatedAt: number;
}
