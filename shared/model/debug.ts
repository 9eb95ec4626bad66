import type { EpochMillis } from './common';
import type { ContainerState } from './container';

/**
 * Debug containers: a toolbox container Porthole starts in a target container's pod
 * sandbox, in the target's PID namespace (CRI `NamespaceMode.TARGET`), with the pod's
 * network and IPC, as the kubelet builds an ephemeral container. The target's processes
 * are visible from it, and its filesystem is reachable at `/proc/<pid>/root`.
 */

/** The toolbox image when the user names none. */
export const defaultDebugImage = 'docker.io/library/busybox:latest';

export interface DebugStartRequest {
  readonly nodeId: string;
  /** The running container to debug. */
  readonly targetId: string;
  /** The toolbox image; `defaultDebugImage` when absent. Pulled when the node lacks it. */
  readonly image?: string;
  /** Keep the debug container when its last terminal closes (default: remove it). */
  readonly keep?: boolean;
}

/**
 * Where a debug container stands: `active` while this Porthole owns it (removed when its
 * last terminal closes), `kept` when the user chose to keep it, `leftover` when no running
 * Porthole owns it (a crash, or a Porthole that quit with it open): offered for removal.
 */
export type DebugStatus = 'active' | 'kept' | 'leftover';

export interface DebugContainer {
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
  readonly podSandboxId: string;
  /** The pod's `namespace/name`, when the runtime knows it. */
  readonly podName?: string;
  readonly targetId: string;
  readonly targetName: string;
  readonly image: string;
  readonly state: ContainerState;
  readonly status: DebugStatus;
  readonly createdAt: EpochMillis;
}

/** What `debug.start` made, and what the terminal's first line tells the user. */
export interface DebugStarted {
  readonly container: DebugContainer;
  /**
   * The target's main process as the debug container sees it (1 when the target had a
   * PID namespace of its own), or undefined when the runtime could not share it.
   */
  readonly targetPid?: number;
  /** One line for the pane: where the target's processes and filesystem are. */
  readonly banner: string;
  /** Whether the image had to be pulled first. */
  readonly pulled: boolean;
}
