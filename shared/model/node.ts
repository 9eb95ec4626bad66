import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';
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

/**
 * `reconnecting`: the node was connected and lost its runtime (or its SSH connection);
 * Porthole is bringing it back by itself, until the user disconnects it.
 */
export type NodeConnectionState =
  'disconnected' | 'connecting' | 'connected' | 'reconnecting' | 'failed';

/**
 * How a runtime is away: `not-answering` when its socket takes calls but nothing comes back
 * in time (a frozen or overloaded runtime), `unreachable` when the connection itself fails
 * (the runtime is stopped, its socket gone).
 */
export type NodeOutageKind = 'not-answering' | 'unreachable';

/** A connected node whose runtime stopped answering, while Porthole reconnects. */
export interface NodeOutage {
  readonly kind: NodeOutageKind;
  /** When Porthole found the runtime not answering. */
  readonly since: EpochMillis;
  /** When it last answered: the runtime facts shown are as of then. */
  readonly lastSeenAt: EpochMillis;
  /** Attempts so far, 1 for the first. */
  readonly attempt: number;
  /** When the next attempt starts (one may be under way). */
  readonly nextAttemptAt: EpochMillis;
  /** Why the runtime was found gone. */
  readonly error: AppErrorData;
  /** Why the last attempt failed, when one did. */
  readonly lastError?: AppErrorData;
}

/** The runtime came back as another version (it was upgraded or replaced). */
export interface RuntimeChange {
  /** e.g. "containerd 1.6.20". */
  readonly from: string;
  readonly to: string;
  readonly at: EpochMillis;
}

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
  /**
   * Why the node failed or is reconnecting; for a connected node, a warning (its lists
   * can't be read though the runtime answers).
   */
  readonly error?: AppErrorData;
  /** While reconnecting: since when, the attempts, and when the next one starts. */
  readonly outage?: NodeOutage;
  /** While reconnecting, `runtime` and `capabilities` are the last known: as of this time. */
  readonly runtimeAsOf?: EpochMillis;
  /** Set when the runtime came back as another version, until the node is disconnected. */
  readonly runtimeChange?: RuntimeChange;
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

/**
 * The `nodes` event: the first message is a reset (every node, `reset: true`; a large
 * fleet's reset may come in several messages, the later ones `reset: false`), then one
 * message each time nodes change, carrying only those nodes.
 */
export interface NodesDelta {
  readonly reset: boolean;
  readonly upserted: readonly NodeStatus[];
  /** Nodes that are gone (a removed profile, a runtime discovery no longer finds). */
  readonly removed: readonly string[];
}
