/** How long a forward waits, retries and paces its events: defaults, overridable per node. */

export interface ForwardTiming {
  /** Starting: how long to look for a ready pod and connect before failing. */
  readonly startTimeoutMs: number;
  /** Reconnecting: how long to keep trying before failing. */
  readonly reconnectTimeoutMs: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  /** How often an active forward checks that its sandbox is still there and ready. */
  readonly healthIntervalMs: number;
  /** How long a new local connection may wait for the forward to become usable. */
  readonly connectionWaitMs: number;
  /** Connections waiting at once; more are refused at once. */
  readonly maxWaitingConnections: number;
  /** Each CRI call (PortForward, ListPodSandbox, PodSandboxStatus). */
  readonly rpcTimeoutMs: number;
  /** Each upgrade of a stream URL (dial, TLS, HTTP). */
  readonly upgradeTimeoutMs: number;
  /** Opening one connection's SPDY stream pair. */
  readonly pairTimeoutMs: number;
  /** Minimum time between two change events caused by traffic alone. */
  readonly metricsIntervalMs: number;
}

export const defaultForwardTiming: ForwardTiming = {
  startTimeoutMs: 30_000,
  reconnectTimeoutMs: 5 * 60_000,
  backoffInitialMs: 250,
  backoffMaxMs: 5_000,
  healthIntervalMs: 2_000,
  connectionWaitMs: 10_000,
  maxWaitingConnections: 256,
  rpcTimeoutMs: 10_000,
  upgradeTimeoutMs: 10_000,
  pairTimeoutMs: 10_000,
  metricsIntervalMs: 250,
};
