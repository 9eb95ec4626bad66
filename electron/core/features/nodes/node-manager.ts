import type { AbortSignalLike, DiscoveryReport, EventSink } from '../../../../shared/contract';
import { AppError, toAppErrorData } from '../../../../shared/errors';
import type { Event } from '../../../../shared/event';
import type { Disposable } from '../../../../shared/lifecycle';
import type {
  ContainerOutcome,
  NodeProfile,
  NodeProfileInput,
  NodeStatus,
  NodesDelta,
  PromptAnswer,
  ResourceDelta,
  SshConnectionState,
} from '../../../../shared/model';
import type { DiscoveryOptions, DiscoveryResult } from '../../base/connect';
import { LocalDiscovery } from './discovery';
import type { CriClientOptions } from '../../base/cri';
import { logger } from '../../base/log';
import { directDialer, type Dialer } from '../../base/streaming';
import { FleetQueues } from './fleet-queues';
import { NodeChanges } from './broadcast';
import {
  applySshState,
  closeConnection,
  createConnection,
  nodeStatus,
  type Connection,
  type NodeClient,
} from './connection';
import { dialNode, type DialedNode } from './dial-node';
import {
  buildEntries,
  connectionKey,
  discoveredNodeId,
  localSocketPath,
  type NodeEntry,
} from './entries';
import { attemptError, notConnected, shuttingDown, unknownNode, type Attempt } from './node-errors';
import { ProfileStore } from './profile-store';
import { PromptBroker } from './prompts';
import type { WatcherTimings } from './resource-watcher';
import { subscribeResources } from './watch-resources';
import type { RuntimeMonitorTimings } from './runtime-monitor';
import type { OpenSsh, SshConnection } from './ssh';

export { toCallOptions, type NodeClient } from './connection';
export { discoveredNodeId } from './entries';

const nodesLog = logger('nodes');

export interface NodeManagerOptions {
  /** Where nodes.json lives. */
  readonly configDir: string;
  readonly discover: (options: DiscoveryOptions) => Promise<DiscoveryResult>;
  readonly createClient: (options: CriClientOptions) => NodeClient;
  /**
   * Opens the SSH connection of an SSH profile; its host key and passphrase questions go
   * through `prompts`. Without it, SSH profiles can be saved but not connected.
   */
  readonly openSsh?: OpenSsh;
  /** Where connection attempts ask the user; a private broker when absent. */
  readonly prompts?: PromptBroker;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly watcherTimings?: Partial<WatcherTimings>;
  /** How often a connected runtime is probed, and the reconnect backoff (tests shorten them). */
  readonly monitorTimings?: Partial<RuntimeMonitorTimings>;
}

/**
 * Every node Porthole knows: the runtimes discovered on this machine and the profiles
 * the user saved, any number of them connected at once, each with one CRI client (one
 * gRPC channel) that is disposed on disconnect. An SSH node's client talks to the
 * runtime on the node through its SSH connection, opened first (asking the user about
 * host keys and passphrases through the prompt broker) and closed last. Status changes
 * are pushed to listeners, the changed nodes only.
 */
export class NodeManager implements Disposable {
  /** The questions connection attempts are waiting on. */
  readonly prompts: PromptBroker;
  private readonly ownsPrompts: boolean;
  private readonly profiles: ProfileStore;
  private readonly discovery: LocalDiscovery;
  private profileWarnings: readonly string[] = [];
  private readonly connections = new Map<string, Connection>();
  /** The entries of connected nodes, so they stay listed while connected. */
  private readonly connectedEntries = new Map<string, NodeEntry>();
  private readonly connecting = new Map<string, Promise<NodeStatus>>();
  private readonly failures = new Map<string, AppError>();
  private readonly attempts = new Map<string, Attempt>();
  /** SSH nodes not connected: how their last connection ended, when it did. */
  private readonly sshEnds = new Map<string, SshConnectionState>();
  /** Built on demand, dropped whenever what it is built from changes (see buildEntries). */
  private entryCache: Map<string, NodeEntry> | undefined;
  private readonly changes = new NodeChanges({
    ids: () => [...this.entryMap().keys()],
    status: (nodeId) => {
      const entry = this.entry(nodeId);
      return entry === undefined ? undefined : this.statusOf(entry);
    },
  });
  /** The nodes whose status changed (never a reset: see sendStatuses). */
  readonly onDidChange: Event<NodesDelta> = this.changes.onDidChange;
  private readonly queues = new FleetQueues();
  private started: Promise<void> | undefined;
  private startDone = false;
  private disposed = false;

  constructor(private readonly options: NodeManagerOptions) {
    this.profiles = new ProfileStore(options.configDir);
    this.discovery = new LocalDiscovery(options.discover, options.env);
    this.ownsPrompts = options.prompts === undefined;
    this.prompts = options.prompts ?? new PromptBroker();
  }

  /**
   * Loads the profiles, discovers local runtimes and connects the profiles marked
   * autoConnect. Idempotent; every public method waits for it.
   */
  start(): Promise<void> {
    this.started ??= (async () => {
      const { warnings } = await this.profiles.load().catch((error: unknown) => ({
        warnings: [toAppErrorData(error).message],
      }));
      for (const warning of warnings) nodesLog.warn(`Saved nodes: ${warning}`);
      this.profileWarnings = warnings;
      this.entryCache = undefined;
      await this.runDiscovery();
      const auto = this.profiles.list().filter((profile) => profile.autoConnect === true);
      // A node that fails to connect shows its error on its card; startup goes on. SSH
      // nodes are not waited for: their questions may wait on the user for minutes.
      // (openConnection has logged why.)
      for (const profile of auto.filter((candidate) => candidate.kind === 'ssh')) {
        this.connectEntry(profile.id).catch(() => undefined);
      }
      await Promise.all(
        auto
          .filter((profile) => profile.kind !== 'ssh')
          .map((profile) => this.connectEntry(profile.id).catch(() => undefined)),
      );
      this.startDone = true;
    })();
    return this.started;
  }

  /** Startup (profiles, discovery, auto-connects) has finished. */
  get isStarted(): boolean {
    return this.startDone;
  }

  async discover(): Promise<DiscoveryReport> {
    await this.start();
    await this.runDiscovery();
    return this.discovery.report(this.profileWarnings);
  }

  async list(): Promise<readonly NodeStatus[]> {
    await this.start();
    return this.statuses();
  }

  /** The current statuses, without waiting for startup. */
  statuses(): readonly NodeStatus[] {
    return [...this.entryMap().values()].map((entry) => this.statusOf(entry));
  }

  /** A subscriber's first message: every node (in chunks), then only changes (onDidChange). */
  sendStatuses(sink: EventSink<NodesDelta>): Disposable {
    return this.changes.sendReset(sink);
  }

  async saveProfile(input: NodeProfileInput): Promise<NodeProfile> {
    await this.start();
    const previous = input.id === undefined ? undefined : this.entry(input.id);
    const profile = await this.profiles.save(input);
    this.entriesChanged();
    // A changed endpoint (or SSH host, user, key…) means a different node: drop the old
    // connection, or the attempt under way.
    const current = this.entry(profile.id);
    if (
      previous !== undefined &&
      current !== undefined &&
      connectionKey(previous) !== connectionKey(current)
    ) {
      this.withdraw(profile.id);
    }
    this.changed(profile.id);
    // A profile that points at a discovered runtime hides that entry.
    for (const nodeId of this.discovery.nodeIds()) this.changed(nodeId);
    return profile;
  }

  /** Throws the AppError removeProfile would: an unknown node, or one only discovered. */
  checkRemovable(nodeId: string): void {
    const entry = this.requireEntry(nodeId);
    if (entry.origin !== 'saved') {
      throw new AppError({
        code: 'failed-precondition',
        message: `${entry.name} was discovered on this machine, not saved.`,
        hint: 'Only saved nodes can be removed.',
      });
    }
  }

  async removeProfile(nodeId: string): Promise<void> {
    await this.start();
    this.checkRemovable(nodeId);
    await this.profiles.remove(nodeId);
    this.entriesChanged();
    // It may live on as a discovered node with the same id; otherwise it is gone.
    const stillDiscovered = this.discovery.endpoints.some(
      (endpoint) => discoveredNodeId(endpoint.endpoint) === nodeId,
    );
    if (!stillDiscovered) this.withdraw(nodeId);
    this.changed(nodeId);
    for (const nodeId of this.discovery.nodeIds()) this.changed(nodeId);
  }

  async connect(nodeId: string, signal?: AbortSignalLike): Promise<NodeStatus> {
    await this.start();
    return this.connectEntry(nodeId, signal);
  }

  /** connect() without waiting for startup (which itself auto-connects through here). */
  private async connectEntry(nodeId: string, signal?: AbortSignalLike): Promise<NodeStatus> {
    const entry = this.requireEntry(nodeId);
    const connection = this.connections.get(nodeId);
    if (connection !== undefined) {
      // Reconnecting: Connect (or Retry) means now, over a new gRPC connection, not after
      // the backoff. Rejects with why it did not work; the node goes on reconnecting.
      if (connection.outage !== undefined) await connection.monitor?.retryNow();
      return this.statusOf(this.requireEntry(nodeId));
    }
    const pending = this.connecting.get(nodeId);
    if (pending !== undefined) return pending;
    const attempt = this.openConnection(entry, signal).finally(() => {
      this.connecting.delete(nodeId);
      this.changed(nodeId);
    });
    this.connecting.set(nodeId, attempt);
    this.changed(nodeId);
    return attempt;
  }

  /** Closes a node's connection, or calls off the attempt under way (and its questions). */
  async disconnect(nodeId: string): Promise<void> {
    await this.start();
    const entry = this.requireEntry(nodeId);
    nodesLog.info(`Disconnecting ${entry.name}.`);
    this.withdraw(nodeId);
    this.changed(nodeId);
  }

  /** Answers a question a connection attempt is waiting on (see PromptBroker.answer). */
  answerPrompt(promptId: string, answer: PromptAnswer): void {
    this.prompts.answer(promptId, answer);
  }

  /** The node's name as the user sees it; the id itself for a node Porthole doesn't know. */
  nodeName(nodeId: string): string {
    return this.entry(nodeId)?.name ?? nodeId;
  }

  /** Whether Porthole knows the node (saved or discovered), connected or not. */
  knowsNode(nodeId: string): boolean {
    return this.entry(nodeId) !== undefined;
  }

  /** The client of a connected node; an AppError saying how to connect otherwise. */
  client(nodeId: string): NodeClient {
    return this.requireConnection(nodeId).client;
  }

  /**
   * How stream URLs of a connected node are dialed: through its SSH connection (they
   * point at the node's loopback), or directly for a local node.
   */
  dialer(nodeId: string): Dialer {
    return this.requireConnection(nodeId).ssh?.dialer ?? directDialer;
  }

  /**
   * How a connected node's files are reached: its SSH connection, or undefined for a node
   * on this machine (read with node:fs).
   */
  sshConnection(nodeId: string): SshConnection | undefined {
    return this.requireConnection(nodeId).ssh;
  }

  /** Subscribes to a connected node's resources (see ResourceWatcher). */
  watchResources(nodeId: string, sink: EventSink<ResourceDelta>): Disposable {
    return subscribeResources(this.requireConnection(nodeId), sink, {
      nodeId,
      name: this.nodeName(nodeId),
      lists: this.queues.lists,
      timings: this.options.watcherTimings,
      changed: () => this.changed(nodeId),
    });
  }

  /** A container's status as a runtime event carried it lately (ResourceWatcher). */
  recentStatus(nodeId: string, containerId: string): ContainerOutcome | undefined {
    return this.connections.get(nodeId)?.watcher?.recentStatus(containerId);
  }

  /**
   * Refreshes a node's resources after Porthole changed them; resolves once sent. Images
   * are read again only when `images` says they may have changed (a pull, a remove).
   */
  async refreshResources(nodeId: string, what: { images?: boolean } = {}): Promise<void> {
    await this.connections.get(nodeId)?.watcher?.refreshNow(what);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const nodeId of [...this.attempts.keys()]) this.withdraw(nodeId);
    for (const nodeId of [...this.connections.keys()]) this.closeConnection(nodeId);
    this.changes.dispose();
    if (this.ownsPrompts) this.prompts.dispose();
  }

  // ---- internals ------------------------------------------------------------------

  private async runDiscovery(): Promise<void> {
    const changed = await this.discovery.run();
    this.entriesChanged();
    for (const nodeId of changed) this.changed(nodeId);
  }

  private entryMap(): Map<string, NodeEntry> {
    this.entryCache ??= buildEntries({
      profiles: this.profiles.list(),
      discovered: this.discovery.endpoints,
      connected: this.connectedEntries,
      runtimeOf: (nodeId) => this.connections.get(nodeId)?.runtime,
    });
    return this.entryCache;
  }

  private entriesChanged(): void {
    this.entryCache = undefined;
  }

  private entry(nodeId: string): NodeEntry | undefined {
    return this.entryMap().get(nodeId);
  }

  private requireEntry(nodeId: string): NodeEntry {
    const entry = this.entry(nodeId);
    if (entry === undefined) throw unknownNode(nodeId);
    return entry;
  }

  private requireConnection(nodeId: string): Connection {
    const connection = this.connections.get(nodeId);
    if (connection !== undefined) return connection;
    const entry = this.entry(nodeId);
    throw entry === undefined ? unknownNode(nodeId) : notConnected(entry.name);
  }

  private statusOf(entry: NodeEntry): NodeStatus {
    const nodeId = entry.nodeId;
    return nodeStatus(entry, {
      connection: this.connections.get(nodeId),
      connecting: this.connecting.has(nodeId),
      failure: this.failures.get(nodeId),
      sshEnd: this.sshEnds.get(nodeId),
    });
  }

  private async openConnection(entry: NodeEntry, signal?: AbortSignalLike): Promise<NodeStatus> {
    const nodeId = entry.nodeId;
    this.failures.delete(nodeId);
    this.sshEnds.delete(nodeId);
    const attempt: Attempt = {
      controller: new AbortController(),
      withdrawn: false,
      timedOut: false,
      declinedHostKey: false,
    };
    const onAbort = (): void => attempt.controller.abort();
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.attempts.set(nodeId, attempt);
    let dialed: DialedNode | undefined;
    try {
      dialed = await dialNode(entry, attempt, {
        createClient: this.options.createClient,
        openSsh: this.options.openSsh,
        prompts: this.prompts,
        queue: this.queues.connects,
      });
      if (this.disposed) throw shuttingDown();
      const { runtime, ssh } = dialed;
      const connection = this.addConnection(entry, dialed, attempt.controller);
      nodesLog.info(
        `Connected ${entry.name}: ${runtime.runtimeName} ${runtime.runtimeVersion} (CRI ${runtime.runtimeApiVersion}).`,
      );
      this.learnCapabilities(nodeId, connection);
      // Lost between the login and now: shown (and cleaned up) like any later loss.
      if (ssh?.state.state === 'disconnected') this.onSshState(nodeId, connection, ssh.state);
      return this.statusOf(entry);
    } catch (error) {
      dialed?.client.dispose();
      dialed?.ssh?.dispose();
      const appError = attemptError(entry.name, error, attempt, this.prompts.timeoutMs);
      if (attempt.withdrawn) nodesLog.info(`Connecting ${entry.name} was called off.`);
      else nodesLog.warn(`Connecting ${entry.name} failed.`, appError);
      if (!attempt.withdrawn) {
        this.failures.set(nodeId, appError);
        if (entry.kind === 'ssh') {
          this.sshEnds.set(nodeId, {
            state: 'disconnected',
            reason: appError.message,
            errorCode: appError.code,
          });
        }
      }
      throw appError;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (this.attempts.get(nodeId) === attempt) this.attempts.delete(nodeId);
    }
  }

  private addConnection(
    entry: NodeEntry,
    dialed: DialedNode,
    lifetime: AbortController,
  ): Connection {
    const nodeId = entry.nodeId;
    const connection = createConnection(dialed, lifetime, {
      name: entry.name,
      socketPath: dialed.ssh === undefined ? localSocketPath(entry) : undefined,
      timings: this.options.monitorTimings,
      current: () => this.connections.get(nodeId) === connection,
      changed: (facts) => {
        // The runtime's name may name the entry (a discovered node).
        if (facts) this.entriesChanged();
        this.changed(nodeId);
      },
      onSshState: (state) => this.onSshState(nodeId, connection, state),
    });
    this.connectedEntries.set(nodeId, entry);
    this.connections.set(nodeId, connection);
    // Listed already (saved or discovered): the entries stay as they are.
    if (!this.entryMap().has(nodeId)) this.entriesChanged();
    return connection;
  }

  /** The optional features, from cheap calls: in the background, a few nodes at a time. */
  private learnCapabilities(nodeId: string, connection: Connection): void {
    const signal = connection.lifetime.signal;
    this.queues.probes
      .run(() => connection.client.probeCapabilities({ signal }))
      .catch(nodesLog.failure(`Learning the capabilities of ${this.nodeName(nodeId)} failed`));
  }

  /** An SSH connection that gave up closes its node, which shows as failed with why. */
  private onSshState(nodeId: string, connection: Connection, state: SshConnectionState): void {
    if (this.connections.get(nodeId) !== connection) return;
    const lost = applySshState(connection, state, this.nodeName(nodeId));
    if (lost !== undefined) {
      this.closeConnection(nodeId, lost);
      this.failures.set(nodeId, lost);
      this.sshEnds.set(nodeId, state);
    }
    this.changed(nodeId);
  }

  /**
   * Calls off whatever the node has under way: the connection attempt (its questions
   * are withdrawn with it) or the connection itself. What is left is `disconnected`.
   */
  private withdraw(nodeId: string): void {
    const attempt = this.attempts.get(nodeId);
    if (attempt !== undefined) {
      attempt.withdrawn = true;
      attempt.controller.abort();
    }
    this.prompts.cancelNode(nodeId);
    this.failures.delete(nodeId);
    this.sshEnds.delete(nodeId);
    this.closeConnection(nodeId);
  }

  private closeConnection(nodeId: string, reason?: AppError): void {
    const connection = this.connections.get(nodeId);
    if (connection === undefined) return;
    this.connections.delete(nodeId);
    this.connectedEntries.delete(nodeId);
    this.entriesChanged();
    closeConnection(connection, reason);
  }

  private changed(nodeId: string): void {
    if (!this.disposed) this.changes.mark(nodeId);
  }
}
