import type { AppErrorData } from '../errors';
import type { EpochMillis, StringMap } from './common';

/**
 * Port forwards, as the UI sees them: plain data, safe to send over IPC. The engine in
 * electron/core/features/forwards owns the sockets; these are its snapshots.
 */

/**
 * Which pod a forward goes to. Whatever the form, the forward follows the pod by its
 * namespace/name (or its labels) when the runtime replaces its sandbox, e.g. after the pod
 * was deleted and re-created: a sandbox id only picks the pod to start with.
 */
export type ForwardTarget =
  | { readonly kind: 'pod'; readonly namespace: string; readonly name: string }
  | {
      readonly kind: 'labels';
      readonly labels: StringMap;
      /** Only pods in this namespace; any namespace when not given. */
      readonly namespace?: string;
    }
  | { readonly kind: 'sandbox'; readonly podSandboxId: string };

export interface ForwardPortSpec {
  /** Port on this machine; 0 lets Porthole pick a free one (see `BoundPort`). */
  readonly localPort: number;
  /** Port inside the pod's network namespace. */
  readonly remotePort: number;
}

/** `auto` tries SPDY and falls back to WebSocket when the runtime refuses the upgrade. */
export type ForwardTransportChoice = 'auto' | 'spdy' | 'websocket';
export type ForwardTransportKind = 'spdy' | 'websocket';

export interface ForwardSpec {
  readonly target: ForwardTarget;
  /** At least one; the forward starts with all of them or with none. */
  readonly ports: readonly ForwardPortSpec[];
  /**
   * Local addresses to listen on. Default: loopback only, 127.0.0.1 and ::1 (::1 only when
   * this machine has IPv6). Anything else is reachable from other machines: ask for it
   * explicitly.
   */
  readonly addresses?: readonly string[];
  /** Default `auto`. */
  readonly transport?: ForwardTransportChoice;
}

/**
 * starting → active ⇄ reconnecting → failed | stopped. `failed` and `stopped` are final:
 * every listener and connection is closed by then.
 */
export type ForwardStateName = 'starting' | 'active' | 'reconnecting' | 'failed' | 'stopped';

export interface ForwardState {
  readonly name: ForwardStateName;
  /** One sentence for the user: why the forward is in this state. */
  readonly reason: string;
  readonly since: EpochMillis;
  /** What went wrong, for `reconnecting` and `failed`. */
  readonly error?: AppErrorData;
}

/** The sandbox the forward currently goes to. */
export interface ForwardPod {
  readonly podSandboxId: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface ForwardTransportInfo {
  readonly kind: ForwardTransportKind;
  /** The negotiated protocol, e.g. `portforward.k8s.io` or `v4.channel.k8s.io`. */
  readonly protocol: string;
  /** Why `auto` did not end up on SPDY, when it fell back. */
  readonly fallbackReason?: string;
}

/** A listening local port. */
export interface BoundPort {
  readonly remotePort: number;
  /** The port actually bound (the chosen one when the spec said 0). */
  readonly localPort: number;
  /** Every address it listens on, e.g. ['127.0.0.1', '::1']. */
  readonly addresses: readonly string[];
}

/**
 * waiting: accepted, waiting for the forward to be usable (e.g. while it reconnects);
 * connecting: opening the stream to the pod; open: bytes flow; closed: ended normally;
 * failed: ended with `error`.
 */
export type ConnectionStateName = 'waiting' | 'connecting' | 'open' | 'closed' | 'failed';

export interface ConnectionMetrics {
  /** Unique within the forward, increasing. */
  readonly id: number;
  readonly localPort: number;
  readonly remotePort: number;
  /** The local client's address and port, e.g. `127.0.0.1:53412` or `[::1]:53412`. */
  readonly client: string;
  readonly state: ConnectionStateName;
  readonly openedAt: EpochMillis;
  readonly closedAt?: EpochMillis;
  /** Bytes from the pod to the local client. */
  readonly bytesIn: number;
  /** Bytes from the local client to the pod. */
  readonly bytesOut: number;
  /** Why it failed: for a refused pod port, the runtime's own words are in `detail`. */
  readonly error?: AppErrorData;
}

export interface ForwardError extends AppErrorData {
  readonly at: EpochMillis;
}

export interface ForwardMetrics {
  readonly openConnections: number;
  readonly totalConnections: number;
  readonly failedConnections: number;
  /** Bytes from the pod to local clients, over all connections. */
  readonly bytesIn: number;
  /** Bytes from local clients to the pod. */
  readonly bytesOut: number;
  readonly lastError?: ForwardError;
}

export interface ForwardSnapshot {
  readonly id: string;
  readonly spec: ForwardSpec;
  readonly state: ForwardState;
  readonly pod?: ForwardPod;
  readonly transport?: ForwardTransportInfo;
  /** Empty until the listeners are bound; kept while reconnecting, so the ports stay. */
  readonly ports: readonly BoundPort[];
  readonly metrics: ForwardMetrics;
  /** The open connections, then the most recently ended ones (a bounded number). */
  readonly connections: readonly ConnectionMetrics[];
}

/**
 * A forward as the port-forwards view lists it: a definition (saved or not) and, when it
 * runs, the engine's snapshot. Its id stays the same across stop, start and restart.
 */
export interface ForwardEntry {
  readonly id: string;
  readonly nodeId: string;
  /**
   * Its node's name: as the node list has it, or, once the node was removed, as it was
   * then (saved forwards keep it in forwards.json).
   */
  readonly nodeName: string;
  /** Its node is gone (removed, and the forward kept): move it to another node to use it. */
  readonly orphaned?: boolean;
  /** What the user called it; a description of the target and ports otherwise. */
  readonly name: string;
  readonly spec: ForwardSpec;
  /** Kept in forwards.json across restarts of Porthole. */
  readonly saved: boolean;
  /** Saved forwards only: started whenever its node connects. */
  readonly autoStart: boolean;
  /** The running forward; absent when stopped. */
  readonly live?: ForwardSnapshot;
  /** Why it is not running, when it stopped on its own or could not start. */
  readonly lastError?: AppErrorData;
}

export interface ForwardOptions {
  readonly name?: string;
  readonly save?: boolean;
  readonly autoStart?: boolean;
  /**
   * Creating a forward that listens beyond loopback (e.g. 0.0.0.0) needs this, set because
   * the user confirmed other machines may reach it; without it `create` refuses. A saved
   * auto-start forward of that kind is not started unattended: it waits for a `start`.
   */
  readonly exposeBeyondLoopback?: boolean;
}
