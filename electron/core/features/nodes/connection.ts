/** One connected node: its client, its SSH connection, what it is known to be, and its status. */
import { AppError, toAppErrorData } from '../../../../shared/errors';
import { DisposableStore } from '../../../../shared/lifecycle';
import type {
  Capabilities,
  NodeOutage,
  NodeStatus,
  RuntimeChange,
  RuntimeInfo,
  SshConnectionState,
} from '../../../../shared/model';
import type { AbortSignalLike } from '../../../../shared/contract';
import type { CriClient } from '../../base/cri';
import { logger } from '../../base/log';
import type { DialedNode } from './dial-node';
import type { NodeEntry } from './entries';
import { updatesOf, watchHealth, type HealthOptions } from './health';
import type { ResourceWatcher } from './resource-watcher';
import type { RuntimeMonitor } from './runtime-monitor';
import type { SshConnection } from './ssh';

const nodesLog = logger('nodes');

/** The parts of a CriClient the services use; tests substitute fakes. */
export type NodeClient = Pick<
  CriClient,
  | 'capabilities'
  | 'version'
  | 'runtimeInfo'
  | 'cgroupDriver'
  | 'probeCapabilities'
  | 'reconnect'
  | 'onDidDrop'
  | 'listPods'
  | 'listContainers'
  | 'listImages'
  | 'watchContainerEvents'
  | 'podStatus'
  | 'containerStatus'
  | 'imageStatus'
  | 'stopContainer'
  | 'removeContainer'
  | 'stopPod'
  | 'removePod'
  | 'removeImage'
  | 'pullImage'
  | 'runPod'
  | 'createContainer'
  | 'startContainer'
  | 'execSync'
  | 'exec'
  | 'attach'
  | 'portForward'
  | 'reopenContainerLog'
  | 'listContainerStats'
  | 'listPodStats'
  | 'podStats'
  | 'podStatsHazard'
  | 'dispose'
>;

export interface Connection {
  readonly client: NodeClient;
  /** SSH nodes: the connection the client's socket is bridged through. */
  readonly ssh: SshConnection | undefined;
  sshState: SshConnectionState | undefined;
  /** Aborted on close: withdraws any question a reconnect is still asking. */
  readonly lifetime: AbortController;
  readonly store: DisposableStore;
  runtime: RuntimeInfo;
  /** Learnt from cheap calls and first use after connecting: `unknown` until then. */
  capabilities: Capabilities;
  /** Known once the runtime's event stream answered (or was found missing). */
  updates: 'events' | 'polling' | undefined;
  connectedAt: number;
  /** The runtime answers but its lists can't be read: a warning on the card. */
  error: AppError | undefined;
  watcher: ResourceWatcher | undefined;
  /** Set once the connection is in place (see watchHealth). */
  monitor: RuntimeMonitor | undefined;
  /** The runtime stopped answering, and since when; undefined while it answers. */
  outage: NodeOutage | undefined;
  runtimeChange: RuntimeChange | undefined;
}

export interface ConnectionHooks extends Omit<HealthOptions, 'changed'> {
  /** The node's status changed; `facts` when its runtime's facts did (a reconnect). */
  readonly changed: (facts: boolean) => void;
  /** SSH nodes: each state change of the SSH connection. */
  readonly onSshState: (state: SshConnectionState) => void;
}

/**
 * A connection over a dialed node: its capabilities followed as calls learn them, its SSH
 * connection's states passed on, its health watched (health.ts).
 */
export function createConnection(
  dialed: DialedNode,
  lifetime: AbortController,
  hooks: ConnectionHooks,
): Connection {
  const { client, ssh, runtime } = dialed;
  const store = new DisposableStore();
  const capabilities = client.capabilities.snapshot();
  const connection: Connection = {
    client,
    ssh,
    sshState: ssh?.state,
    lifetime,
    store,
    runtime,
    capabilities,
    updates: updatesOf(capabilities),
    connectedAt: Date.now(),
    error: undefined,
    watcher: undefined,
    monitor: undefined,
    outage: undefined,
    runtimeChange: undefined,
  };
  store.add(
    client.capabilities.onDidChange((next) => {
      connection.capabilities = next;
      connection.updates = updatesOf(next) ?? connection.updates;
      hooks.changed(false);
    }),
  );
  if (ssh !== undefined) store.add(ssh.onDidChangeState((state) => hooks.onSshState(state)));
  connection.monitor = store.add(
    watchHealth(connection, { ...hooks, changed: () => hooks.changed(true) }),
  );
  return connection;
}

/** What, besides a connection, decides a node's status. */
export interface NodeFacts {
  readonly connection: Connection | undefined;
  readonly connecting: boolean;
  readonly failure: AppError | undefined;
  /** SSH nodes not connected: how their last connection ended. */
  readonly sshEnd: SshConnectionState | undefined;
}

/** An SSH node that was never connected (or was disconnected by the user). */
const notConnectedSsh: SshConnectionState = { state: 'disconnected', reason: 'not connected' };

export function nodeStatus(entry: NodeEntry, facts: NodeFacts): NodeStatus {
  const base = {
    nodeId: entry.nodeId,
    name: entry.name,
    kind: entry.kind,
    endpoint: entry.endpoint,
    origin: entry.origin,
    ...(entry.profile !== undefined && { profile: entry.profile }),
  };
  const connection = facts.connection;
  if (connection !== undefined) {
    const ssh = connection.sshState;
    const outage = connection.outage;
    // While SSH or the runtime is away the node is on its way back, not failed: calls
    // fail meanwhile with the dropped connection, which `ssh` or `outage` explains.
    const reconnecting = ssh?.state === 'reconnecting' || outage !== undefined;
    const warning = reconnecting || connection.error === undefined ? undefined : connection.error;
    const error = outage?.error ?? (warning !== undefined ? toAppErrorData(warning) : undefined);
    return {
      ...base,
      state: reconnecting ? 'reconnecting' : 'connected',
      ...(error !== undefined && { error }),
      ...(outage !== undefined && { outage, runtimeAsOf: outage.lastSeenAt }),
      ...(connection.runtimeChange !== undefined && {
        runtimeChange: connection.runtimeChange,
      }),
      runtime: connection.runtime,
      capabilities: connection.capabilities,
      ...(connection.updates !== undefined && { updates: connection.updates }),
      connectedAt: connection.connectedAt,
      ...(ssh !== undefined && { ssh }),
      ...(connection.ssh !== undefined && {
        runtimeEndpoint: `unix://${connection.ssh.runtimeSocketPath}`,
      }),
    };
  }
  if (facts.connecting) return { ...base, state: 'connecting' };
  const sshEnd = entry.kind === 'ssh' ? { ssh: facts.sshEnd ?? notConnectedSsh } : undefined;
  if (facts.failure !== undefined) {
    return { ...base, ...sshEnd, state: 'failed', error: toAppErrorData(facts.failure) };
  }
  const probe = entry.discovered?.probe;
  if (probe === undefined) return { ...base, ...sshEnd, state: 'disconnected' };
  if (probe.state === 'ready') return { ...base, state: 'disconnected', runtime: probe.info };
  return {
    ...base,
    state: 'disconnected',
    error: {
      code: probe.errorCode,
      message: probe.message,
      ...(probe.hint !== undefined && { hint: probe.hint }),
    },
  };
}

/** Closes a connection: the watcher, the CRI client, then the SSH connection under it. */
export function closeConnection(connection: Connection, reason: AppError | undefined): void {
  connection.watcher?.fail(
    reason ??
      new AppError({
        code: 'failed-precondition',
        message: 'The node was disconnected.',
        hint: 'Connect it again to see its resources.',
      }),
  );
  connection.watcher?.dispose();
  connection.lifetime.abort();
  connection.store.dispose();
  connection.client.dispose();
  connection.ssh?.dispose();
}

/**
 * Takes an SSH state change into the connection (the UI is told by the caller): logs it,
 * and when SSH is back asks the monitor to look now rather than at the next step of its
 * backoff. `disconnected` means SSH gave up (retries exhausted) or hit what a retry can't
 * fix (a changed host key, a refused login): returns the error the node is closed with.
 */
export function applySshState(
  connection: Connection,
  state: SshConnectionState,
  name: string,
): AppError | undefined {
  const changed = state.state !== connection.sshState?.state;
  connection.sshState = state;
  if (changed && state.state === 'reconnecting') {
    nodesLog.warn(`SSH to ${name} dropped (${state.reason}); reconnecting.`);
  } else if (changed && state.state === 'connected') {
    nodesLog.info(`SSH to ${name} is back.`);
  }
  if (state.state === 'connected') connection.monitor?.check();
  if (state.state !== 'disconnected') return undefined;
  const error = new AppError({
    code: state.errorCode ?? 'connection-lost',
    message: `The SSH connection to ${name} was lost: ${state.reason.replace(/\.$/, '')}.`,
    hint: 'Connect again once the node is reachable.',
  });
  nodesLog.warn(error.message);
  return error;
}

/**
 * The dispatcher's signal is the platform AbortSignal (typed structurally in shared,
 * which has no DOM or Node types), so it can go to the CRI client as it is.
 */
export function toCallOptions(signal: AbortSignalLike | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal: signal as AbortSignal };
}
