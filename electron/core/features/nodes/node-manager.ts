import type { DiscoveryReport, EventSink, AbortSignalLike } from '../../../../shared/contract';
import { AppError, toAppErrorData } from '../../../../shared/errors';
import { Emitter, type Event } from '../../../../shared/event';
import { DisposableStore, toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type {
  Capabilities,
  DiscoveredEndpoint,
  DiscoverySource,
  NodeOutage,
  NodeProfile,
  NodeProfileInput,
  NodeStatus,
  PromptAnswer,
  ResourceDelta,
  RuntimeChange,
  RuntimeInfo,
  SshConnectionState,
  SshNodeProfile,
} from '../../../../shared/model';
import type { DiscoveryOptions, DiscoveryResult } from '../../base/connect';
import { parseEndpoint, type CriClient, type CriClientOptions } from '../../base/cri';
import { directDialer, type Dialer } from '../../base/streaming';
import { PromptBroker } from './index';
import { ResourceWatcher, type WatcherTimings } from './index';
import { ProfileStore } from './profile-store';
import { RuntimeMonitor, type RuntimeMonitorTimings } from './runtime-monitor';
import { watchSocketCreated } from './socket-watch';
import { sshAddress, sshConnectionKey, type OpenSsh, type SshConnection } from './ssh';
import { logger } from '../../base/log';

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

/** Deadline of the health probe and of each reconnect attempt's first call. */
const probeTimeoutMs = 3000;

/** A node discovered on this machine: its id is derived from the endpoint, so it is stable. */
export function discoveredNodeId(endpoint: string): string {
  return `local:${endpoint}`;
}

interface Connection {
  readonly client: NodeClient;
  /** SSH nodes: the connection the client's socket is bridged through. */
  readonly ssh: SshConnection | undefined;
  sshState: SshConnectionState | undefined;
  /** Aborted on close: withdraws any question a reconnect is still asking. */
  readonly lifetime: AbortController;
  readonly store: DisposableStore;
  runtime: RuntimeInfo;
  capabilities: Capabilities;
  updates: 'events' | 'polling';
  connectedAt: number;
  /** The runtime answers but its lists can't be read: a warning on the card. */
  error: AppError | undefined;
  watcher: ResourceWatcher | undefined;
  /** Set once the connection is in place (see openConnection). */
  monitor: RuntimeMonitor | undefined;
  /** The runtime stopped answering, and since when; undefined while it answers. */
  outage: NodeOutage | undefined;
  runtimeChange: RuntimeChange | undefined;
}

interface NodeEntry {
  readonly nodeId: string;
  readonly name: string;
  readonly origin: 'saved' | 'discovered';
  readonly kind: NodeProfile['kind'];
  /** Local nodes: the runtime socket. SSH nodes: `ssh://…`, for display. */
  readonly endpoint: string;
  readonly imageEndpoint?: string;
  readonly timeoutMs?: number;
  readonly profile?: NodeProfile;
  readonly discovered?: DiscoveredEndpoint;
}

/** A connection attempt under way. */
interface Attempt {
  readonly controller: AbortController;
  /** Called off by the user (disconnect, removed or changed profile): not a failure. */
  withdrawn: boolean;
  /** A question went unanswered until it timed out. */
  timedOut: boolean;
  /** The user refused a host key. */
  declinedHostKey: boolean;
}

/**
 * Every node Porthole knows: the runtimes discovered on this machine and the profiles
 * the user saved, any number of them connected at once, each with one CRI client (one
 * gRPC channel) that is disposed on disconnect. An SSH node's client talks to the
 * runtime on the node through its SSH connection, opened first (asking the user about
 * host keys and passphrases through the prompt broker) and closed last. Status changes
 * are pushed to listeners.
 */
export class NodeManager implements Disposable {
  /** The questions connection attempts are waiting on. */
  readonly prompts: PromptBroker;
  private readonly ownsPrompts: boolean;
  private readonly profiles: ProfileStore;
  private discovered: readonly DiscoveredEndpoint[] = [];
  private sources: readonly DiscoverySource[] = [];
  private warnings: readonly string[] = [];
  private profileWarnings: readonly string[] = [];
  private readonly connections = new Map<string, Connection>();
  private readonly connecting = new Map<string, Promise<NodeStatus>>();
  private readonly failures = new Map<string, AppError>();
  private readonly attempts = new Map<string, Attempt>();
  /** SSH nodes not connected: how their last connection ended, when it did. */
  private readonly sshEnds = new Map<string, SshConnectionState>();
  private readonly changed = new Emitter<readonly NodeStatus[]>();
  /** Every node's status, each time one changes. */
  readonly onDidChange: Event<readonly NodeStatus[]> = this.changed.event;
  private started: Promise<void> | undefined;
  private disposed = false;

  constructor(private readonly options: NodeManagerOptions) {
    this.profiles = new ProfileStore(options.configDir);
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
    })();
    return this.started;
  }

  async discover(): Promise<DiscoveryReport> {
    await this.start();
    await this.runDiscovery();
    this.emit();
    return {
      endpoints: this.discovered,
      warnings: [...this.profileWarnings, ...this.warnings],
      sources: this.sources,
    };
  }

  async list(): Promise<readonly NodeStatus[]> {
    await this.start();
    return this.statuses();
  }

  /** The current statuses, without waiting for startup (for event subscribers). */
  statuses(): readonly NodeStatus[] {
    return this.entries().map((entry) => this.statusOf(entry));
  }

  async saveProfile(input: NodeProfileInput): Promise<NodeProfile> {
    await this.start();
    const previous = input.id === undefined ? undefined : this.entry(input.id);
    const profile = await this.profiles.save(input);
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
    this.emit();
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
    // It may live on as a discovered node with the same id; otherwise it is gone.
    const stillDiscovered = this.discovered.some(
      (endpoint) => discoveredNodeId(endpoint.endpoint) === nodeId,
    );
    if (!stillDiscovered) this.withdraw(nodeId);
    this.emit();
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
      this.emit();
    });
    this.connecting.set(nodeId, attempt);
    this.emit();
    return attempt;
  }

  /** Closes a node's connection, or calls off the attempt under way (and its questions). */
  async disconnect(nodeId: string): Promise<void> {
    await this.start();
    const entry = this.requireEntry(nodeId);
    nodesLog.info(`Disconnecting ${entry.name}.`);
    this.withdraw(nodeId);
    this.emit();
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
    const connection = this.connections.get(nodeId);
    if (connection !== undefined) return connection.client;
    const entry = this.entry(nodeId);
    if (entry === undefined) throw unknownNode(nodeId);
    throw notConnected(entry.name);
  }

  /**
   * How stream URLs of a connected node are dialed: through its SSH connection (they
   * point at the node's loopback), or directly for a local node.
   */
  dialer(nodeId: string): Dialer {
    const connection = this.connections.get(nodeId);
    if (connection === undefined) {
      const entry = this.entry(nodeId);
      throw entry === undefined ? unknownNode(nodeId) : notConnected(entry.name);
    }
    return connection.ssh?.dialer ?? directDialer;
  }

  /**
   * How a connected node's files are reached: its SSH connection, or undefined for a node
   * on this machine (read with node:fs).
   */
  sshConnection(nodeId: string): SshConnection | undefined {
    const connection = this.connections.get(nodeId);
    if (connection === undefined) {
      const entry = this.entry(nodeId);
      throw entry === undefined ? unknownNode(nodeId) : notConnected(entry.name);
    }
    return connection.ssh;
  }

  /** Subscribes to a connected node's resources (see ResourceWatcher). */
  watchResources(nodeId: string, sink: EventSink<ResourceDelta>): Disposable {
    const connection = this.connections.get(nodeId);
    if (connection === undefined) {
      const entry = this.entry(nodeId);
      throw entry === undefined ? unknownNode(nodeId) : notConnected(entry.name);
    }
    connection.watcher ??= this.createWatcher(nodeId, connection);
    const watcher = connection.watcher;
    const subscription = watcher.subscribe(sink);
    return toDisposable(() => {
      subscription.dispose();
      // Nobody watching: stop polling the runtime.
      if (watcher.subscriberCount === 0 && connection.watcher === watcher) {
        watcher.dispose();
        connection.watcher = undefined;
      }
    });
  }

  /** Refreshes a node's resources after Porthole changed them; resolves once sent. */
  async refreshResources(nodeId: string): Promise<void> {
    await this.connections.get(nodeId)?.watcher?.refreshNow();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const nodeId of [...this.attempts.keys()]) this.withdraw(nodeId);
    for (const nodeId of [...this.connections.keys()]) this.closeConnection(nodeId);
    this.changed.dispose();
    if (this.ownsPrompts) this.prompts.dispose();
  }

  // ---- internals ------------------------------------------------------------------

  private async runDiscovery(): Promise<void> {
    try {
      const result = await this.options.discover({
        ...(this.options.env !== undefined && { env: this.options.env }),
      });
      this.discovered = result.endpoints;
      this.sources = result.sources;
      this.warnings = result.warnings;
    } catch (error) {
      this.warnings = [`Discovery failed: ${toAppErrorData(error).message}`];
    }
  }

  /** Saved profiles first, then the discovered runtimes no profile already points at. */
  private entries(): NodeEntry[] {
    const saved: NodeEntry[] = this.profiles.list().map((profile) =>
      profile.kind === 'ssh'
        ? {
            nodeId: profile.id,
            name: profile.name,
            origin: 'saved',
            kind: 'ssh',
            endpoint: sshAddress(profile),
            ...(profile.timeoutMs !== undefined && { timeoutMs: profile.timeoutMs }),
            profile,
          }
        : {
            nodeId: profile.id,
            name: profile.name,
            origin: 'saved',
            kind: 'local',
            endpoint: profile.endpoint,
            ...(profile.imageEndpoint !== undefined && { imageEndpoint: profile.imageEndpoint }),
            ...(profile.timeoutMs !== undefined && { timeoutMs: profile.timeoutMs }),
            profile,
          },
    );
    const taken = new Set(saved.flatMap((entry) => [entry.nodeId, entry.endpoint]));
    const discovered: NodeEntry[] = this.discovered
      // A well-known socket that doesn't exist is noise, and so is a lab that is down; a
      // socket the user configured is not.
      .filter(
        (endpoint) =>
          endpoint.probe.state !== 'absent' ||
          (endpoint.source !== 'well-known' && endpoint.source !== 'lab'),
      )
      .filter(
        (endpoint) =>
          !taken.has(endpoint.endpoint) && !taken.has(discoveredNodeId(endpoint.endpoint)),
      )
      .map((endpoint) => ({
        nodeId: discoveredNodeId(endpoint.endpoint),
        name: this.discoveredName(endpoint),
        origin: 'discovered',
        kind: 'local',
        endpoint: endpoint.endpoint,
        ...(endpoint.imageEndpoint !== endpoint.endpoint && {
          imageEndpoint: endpoint.imageEndpoint,
        }),
        ...(endpoint.timeoutMs !== undefined && { timeoutMs: endpoint.timeoutMs }),
        discovered: endpoint,
      }));
    // Connected nodes stay listed even if a later discovery no longer finds them.
    const listed = new Set([...saved, ...discovered].map((entry) => entry.nodeId));
    const orphans = [...this.connections.keys()].filter((id) => !listed.has(id));
    return [...saved, ...discovered, ...orphans.flatMap((id) => this.orphanEntry(id))];
  }

  /**
   * "containerd (CONTAINER_RUNTIME_ENDPOINT)": the runtime that answered discovery, or, for
   * a connected node whose runtime is down as discovery runs again, the one it knows — a
   * node is not renamed because its runtime is restarting.
   */
  private discoveredName(endpoint: DiscoveredEndpoint): string {
    // A lab runtime's origin ("lab containerd-2") already says what it is.
    if (endpoint.source === 'lab') return endpoint.origin;
    const runtime =
      endpoint.probe.state === 'ready'
        ? endpoint.probe.info
        : this.connections.get(discoveredNodeId(endpoint.endpoint))?.runtime;
    return runtime === undefined ? endpoint.origin : `${runtime.runtimeName} (${endpoint.origin})`;
  }

  private readonly orphanEntries = new Map<string, NodeEntry>();

  private orphanEntry(nodeId: string): NodeEntry[] {
    const entry = this.orphanEntries.get(nodeId);
    return entry === undefined ? [] : [entry];
  }

  private entry(nodeId: string): NodeEntry | undefined {
    return this.entries().find((entry) => entry.nodeId === nodeId);
  }

  private requireEntry(nodeId: string): NodeEntry {
    const entry = this.entry(nodeId);
    if (entry === undefined) throw unknownNode(nodeId);
    return entry;
  }

  private statusOf(entry: NodeEntry): NodeStatus {
    const connection = this.connections.get(entry.nodeId);
    const base = {
      nodeId: entry.nodeId,
      name: entry.name,
      kind: entry.kind,
      endpoint: entry.endpoint,
      origin: entry.origin,
      ...(entry.profile !== undefined && { profile: entry.profile }),
    };
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
        updates: connection.updates,
        connectedAt: connection.connectedAt,
        ...(ssh !== undefined && { ssh }),
        ...(connection.ssh !== undefined && {
          runtimeEndpoint: `unix://${connection.ssh.runtimeSocketPath}`,
        }),
      };
    }
    if (this.connecting.has(entry.nodeId)) return { ...base, state: 'connecting' };
    const sshEnd =
      entry.kind === 'ssh' ? { ssh: this.sshEnds.get(entry.nodeId) ?? notConnectedSsh } : undefined;
    const failure = this.failures.get(entry.nodeId);
    if (failure !== undefined) {
      return { ...base, ...sshEnd, state: 'failed', error: toAppErrorData(failure) };
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
    const aborted = attempt.controller.signal;
    const onAbort = (): void => attempt.controller.abort();
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.attempts.set(nodeId, attempt);
    let ssh: SshConnection | undefined;
    let client: NodeClient | undefined;
    try {
      const profile = entry.profile;
      if (profile?.kind === 'ssh') ssh = await this.openSsh(entry, profile, attempt);
      // The SSH login may have finished just as the attempt was called off.
      if (aborted.aborted) throw cancelledAttempt(entry.name);
      client = this.options.createClient(
        ssh !== undefined
          ? {
              endpoint: ssh.endpoint,
              ...(entry.timeoutMs !== undefined && { timeoutMs: entry.timeoutMs }),
            }
          : {
              endpoint: entry.endpoint,
              ...(entry.imageEndpoint !== undefined && { imageEndpoint: entry.imageEndpoint }),
              ...(entry.timeoutMs !== undefined && { timeoutMs: entry.timeoutMs }),
            },
      );
      const callOptions = { signal: aborted };
      const runtime = await client.runtimeInfo(callOptions);
      const capabilities = await client.probeCapabilities(callOptions);
      if (this.disposed)
        throw new AppError({ code: 'cancelled', message: 'Porthole is shutting down.' });
      if (aborted.aborted) throw cancelledAttempt(entry.name);
      const store = new DisposableStore();
      const connection: Connection = {
        client,
        ssh,
        sshState: ssh?.state,
        lifetime: attempt.controller,
        store,
        runtime,
        capabilities,
        updates: capabilities.containerEvents === 'supported' ? 'events' : 'polling',
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
          if (next.containerEvents !== 'supported') connection.updates = 'polling';
          this.emit();
        }),
      );
      if (ssh !== undefined) {
        store.add(ssh.onDidChangeState((state) => this.onSshState(nodeId, connection, state)));
      }
      connection.monitor = store.add(this.createMonitor(nodeId, connection));
      this.orphanEntries.set(nodeId, entry);
      this.connections.set(nodeId, connection);
      nodesLog.info(
        `Connected ${entry.name}: ${runtime.runtimeName} ${runtime.runtimeVersion} (CRI ${runtime.runtimeApiVersion}), updates by ${connection.updates}.`,
      );
      // Lost between the login and now: shown (and cleaned up) like any later loss.
      if (ssh?.state.state === 'disconnected') this.onSshState(nodeId, connection, ssh.state);
      return this.statusOf(entry);
    } catch (error) {
      client?.dispose();
      ssh?.dispose();
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

  /** Opens an SSH node's connection, its questions going to the prompt broker. */
  private async openSsh(
    entry: NodeEntry,
    profile: SshNodeProfile,
    attempt: Attempt,
  ): Promise<SshConnection> {
    const openSsh = this.options.openSsh;
    if (openSsh === undefined) {
      throw new AppError({
        code: 'unimplemented',
        message: `${entry.name} is reached over SSH, which this Porthole core was started without.`,
      });
    }
    const subject = { nodeId: entry.nodeId, nodeName: entry.name };
    // The signal outlives the attempt (it is the connection's lifetime): a reconnect's
    // question is withdrawn when the node is disconnected.
    const signal = attempt.controller.signal;
    const asked = new Map<string, number>();
    return openSsh(profile, {
      signal,
      confirmHostKey: async (hostKey) => {
        const outcome = await this.prompts.askHostKey(subject, hostKey, signal);
        if (!outcome.answered) {
          if (outcome.reason === 'timeout') attempt.timedOut = true;
          return false;
        }
        if (!outcome.value) attempt.declinedHostKey = true;
        return outcome.value;
      },
      askPassphrase: async (keyPath) => {
        const count = (asked.get(keyPath) ?? 0) + 1;
        asked.set(keyPath, count);
        const outcome = await this.prompts.askPassphrase(subject, keyPath, count, signal);
        if (outcome.answered) return outcome.value;
        if (outcome.reason === 'timeout') attempt.timedOut = true;
        return undefined;
      },
    });
  }

  /**
   * Every SSH state change is pushed to the UI. `disconnected` means SSH gave up (retries
   * exhausted) or hit what a retry can't fix (a changed host key, a refused login): the
   * node is closed and shows as failed with why.
   */
  private onSshState(nodeId: string, connection: Connection, state: SshConnectionState): void {
    if (this.connections.get(nodeId) !== connection) return;
    const changed = state.state !== connection.sshState?.state;
    connection.sshState = state;
    const name = this.entry(nodeId)?.name ?? nodeId;
    if (changed && state.state === 'reconnecting') {
      nodesLog.warn(`SSH to ${name} dropped (${state.reason}); reconnecting.`);
    } else if (changed && state.state === 'connected') {
      nodesLog.info(`SSH to ${name} is back.`);
    }
    // SSH is back: the runtime behind it may answer again, try now rather than at the
    // next step of the backoff.
    if (state.state === 'connected') connection.monitor?.check();
    if (state.state === 'disconnected') {
      const error = new AppError({
        code: state.errorCode ?? 'connection-lost',
        message: `The SSH connection to ${name} was lost: ${state.reason.replace(/\.$/, '')}.`,
        hint: 'Connect again once the node is reachable.',
      });
      nodesLog.warn(error.message);
      this.closeConnection(nodeId, error);
      this.failures.set(nodeId, error);
      this.sshEnds.set(nodeId, state);
    }
    this.emit();
  }

  private createWatcher(nodeId: string, connection: Connection): ResourceWatcher {
    const watcher = new ResourceWatcher({
      nodeId,
      client: connection.client,
      useEvents: connection.updates === 'events',
      ...(this.options.watcherTimings !== undefined && { timings: this.options.watcherTimings }),
      onHealth: (error) => {
        // A failed list may be the runtime going away: the monitor has the verdict.
        if (error !== undefined) connection.monitor?.check();
        const changed = (connection.error?.message ?? '') !== (error?.message ?? '');
        connection.error = error;
        if (changed) this.emit();
      },
      onEventsUnsupported: () => {
        connection.updates = 'polling';
        this.emit();
      },
    });
    // Subscribed while the runtime is down: nothing to read until it is back.
    if (connection.outage !== undefined) watcher.suspend();
    return watcher;
  }

  /**
   * The connection's health (see RuntimeMonitor): a runtime that stops answering puts
   * the node in `reconnecting` and its watcher on hold; each attempt dials the socket
   * afresh and reads the runtime's facts again; once it answers, the node is connected,
   * its subscribers get a reset, and its capabilities are probed again in the background
   * (the runtime may have been upgraded meanwhile).
   */
  private createMonitor(nodeId: string, connection: Connection): RuntimeMonitor {
    const { client } = connection;
    // A local runtime re-creates its socket as it restarts: the moment to try again.
    const socketPath =
      connection.ssh === undefined ? localSocketPath(this.entry(nodeId)) : undefined;
    const current = (): boolean => this.connections.get(nodeId) === connection;
    return new RuntimeMonitor({
      ...(this.options.monitorTimings !== undefined && { timings: this.options.monitorTimings }),
      onDidDrop: (listener) => client.onDidDrop(listener),
      ...(socketPath !== undefined && {
        watchReturn: (listener: () => void) => watchSocketCreated(socketPath, listener),
      }),
      probe: async (signal) => {
        await client.version({ signal, timeoutMs: probeTimeoutMs });
      },
      reconnect: async (signal) => {
        client.reconnect();
        const runtime = await client.runtimeInfo({ signal, timeoutMs: probeTimeoutMs });
        if (signal.aborted || !current()) return;
        const from = runtimeLabel(connection.runtime);
        const to = runtimeLabel(runtime);
        if (from !== to) connection.runtimeChange = { from, to, at: Date.now() };
        connection.runtime = runtime;
        const events = connection.updates === 'events';
        connection.watcher?.resume(events);
        client.probeCapabilities({ signal }).then(
          (capabilities) => {
            if (signal.aborted || !current()) return;
            connection.capabilities = capabilities;
            const supported = capabilities.containerEvents === 'supported';
            connection.updates = supported ? 'events' : 'polling';
            if (supported !== events) connection.watcher?.resume(supported);
            this.emit();
          },
          // Left as they were: the next drop probes again.
          () => undefined,
        );
        this.emit();
      },
      onChange: (outage) => {
        if (!current()) return;
        const wasDown = connection.outage !== undefined;
        connection.outage = outage;
        if (outage !== undefined && !wasDown) connection.watcher?.suspend();
        if (outage === undefined && wasDown) connection.connectedAt = Date.now();
        this.emit();
      },
    });
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

  /** Closes a connection: the watcher, the CRI client, then the SSH connection under it. */
  private closeConnection(nodeId: string, reason?: AppError): void {
    const connection = this.connections.get(nodeId);
    if (connection === undefined) return;
    this.connections.delete(nodeId);
    this.orphanEntries.delete(nodeId);
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

  private emit(): void {
    if (this.disposed) return;
    if (this.changed.hasListeners) this.changed.fire(this.statuses());
  }
}

/**
 * The dispatcher's signal is the platform AbortSignal (typed structurally in shared,
 * which has no DOM or Node types), so it can go to the CRI client as it is.
 */
export function toCallOptions(signal: AbortSignalLike | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal: signal as AbortSignal };
}

/** An SSH node that was never connected (or was disconnected by the user). */
const notConnectedSsh: SshConnectionState = { state: 'disconnected', reason: 'not connected' };

/** What decides whether a saved profile still describes the open connection. */
function connectionKey(entry: NodeEntry): string {
  const profile = entry.profile;
  if (profile?.kind === 'ssh') return `ssh ${sshConnectionKey(profile)}`;
  return `local ${entry.endpoint} ${entry.imageEndpoint ?? ''}`;
}

/** A local node's runtime socket, when its endpoint is one Porthole can dial. */
function localSocketPath(entry: NodeEntry | undefined): string | undefined {
  if (entry === undefined || entry.kind !== 'local') return undefined;
  try {
    return parseEndpoint(entry.endpoint).path;
  } catch {
    return undefined;
  }
}

/** How a runtime introduces itself, for "containerd 1.6.20 → 2.1.9". */
function runtimeLabel(runtime: RuntimeInfo): string {
  return `${runtime.runtimeName} ${runtime.runtimeVersion}`;
}

function cancelledAttempt(name: string): AppError {
  return new AppError({ code: 'cancelled', message: `Connecting to ${name} was cancelled.` });
}

/** A failed attempt's error, in the words that fit how it ended. */
function attemptError(
  name: string,
  error: unknown,
  attempt: Attempt,
  promptTimeoutMs: number,
): AppError {
  const appError = error instanceof AppError ? error : new AppError(toAppErrorData(error));
  if (appError.code !== 'cancelled') {
    return attempt.controller.signal.aborted ? cancelledAttempt(name) : appError;
  }
  if (attempt.timedOut && !attempt.controller.signal.aborted) {
    return new AppError({
      code: 'deadline-exceeded',
      message: `No answer came to Porthole's question about ${name} within ${duration(promptTimeoutMs)}; it was not connected.`,
      hint: 'Connect again, and answer the question (a host key or a passphrase) when it shows.',
    });
  }
  if (attempt.declinedHostKey && appError.hint === undefined) {
    return new AppError({
      ...toAppErrorData(appError),
      hint: 'Connect again to be asked again. Trust a host key only when its fingerprint matches the one the host shows (on the host: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub).',
    });
  }
  return appError;
}

function duration(ms: number): string {
  if (ms >= 60_000) {
    const minutes = Math.round(ms / 60_000);
    return minutes === 1 ? '1 minute' : `${minutes} minutes`;
  }
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

function unknownNode(nodeId: string): AppError {
  return new AppError({
    code: 'not-found',
    message: `There is no node "${nodeId}".`,
    hint: 'It may have been removed; refresh the node list.',
  });
}

function notConnected(name: string): AppError {
  return new AppError({
    code: 'failed-precondition',
    message: `${name} is not connected.`,
    hint: 'Connect the node first.',
  });
}
