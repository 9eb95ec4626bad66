import type { AppErrorData } from '../errors';
import type { Capabilities, RuntimeInfo } from './runtime';
import type { SshConnectionState, SshNodeProfile } from './ssh';

/**
 * A node the user saved or that discovery found. Local nodes are a runtime socket on this
 * machine; SSH nodes (./ssh) are reached through an SSH connection to the node.
 */
export interface LocalNodeProfile {
  readonly id: string;
  readonly kind: 'local';
  /** What the user calls it; defaults to the runtime and socket. */
  readonly name: string;
  readonly endpoint: string;
  /** When the image service lives on another socket. */
  readonly imageEndpoint?: string;
  /** Per-call deadline, in milliseconds. */
  readonly timeoutMs?: number;
  /** Connect when Porthole starts. */
  readonly autoConnect?: boolean;
}

export type NodeProfile = LocalNodeProfile | SshNodeProfile;

/** `P` with an optional id, for each member of a union on its own (Omit alone is not distributive). */
type WithOptionalId<P> = P extends unknown ? Omit<P, 'id'> & { readonly id?: string } : never;

/** A profile as the user submits it: the id is assigned on save when absent. */
export type NodeProfileInput = WithOptionalId<NodeProfile>;

export type NodeConnectionState = 'disconnected' | 'connecting' | 'connected' | 'failed';

/** Everything a node card shows, pushed to the UI whenever it changes. */
export interface NodeStatus {
  readonly nodeId: string;
  readonly name: string;
  readonly kind: NodeProfile['kind'];
  /**
   * Local nodes: the runtime socket. SSH nodes: where the node is reached,
   * `ssh://[user@]host[:port]` as the profile says it (the config may add to it).
   */
  readonly endpoint: string;
  /** Saved by the user, or only discovered on this machine. */
  readonly origin: 'saved' | 'discovered';
  readonly state: NodeConnectionState;
  readonly error?: AppErrorData;
  readonly runtime?: RuntimeInfo;
  readonly capabilities?: Capabilities;
  /** How resource lists stay fresh: the runtime's event stream, or polling. */
  readonly updates?: 'events' | 'polling';
  readonly connectedAt?: number;
  /**
   * SSH nodes: the SSH connection's state (the reason while reconnecting or after it was
   * lost). Absent while the first connection attempt is under way.
   */
  readonly ssh?: SshConnectionState;
  /** SSH nodes, once connected: the runtime socket on the node, e.g. `unix:///run/containerd/containerd.sock`. */
  readonly runtimeEndpoint?: string;
  /** The saved profile, for editing (saved nodes only). */
  readonly profile?: NodeProfile;
}
