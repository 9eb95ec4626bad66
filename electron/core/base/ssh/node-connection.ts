/**
 * One SSH connection per node, shared by everything on it: CRI calls (through the gRPC
 * bridge), stream URLs (through `dialer`), log files (SFTP).
 *
 * States: connected → (drop) → reconnecting, with bounded, jittered backoff → connected
 * again, or disconnected (gave up, or a failure retrying can't fix: changed host key,
 * refused login). On a drop every live channel ends at once with a `connection-lost`
 * error naming the node and the reason; the bridge socket stays, and answers CRI calls
 * with `unavailable` until the connection is back. Dispose closes everything and removes
 * the bridge's temp dir.
 */
import type { Duplex } from 'node:stream';
import { AppError, isAppError } from '../../../../shared/errors';
import { Emitter, type Event } from '../../../../shared/event';
import type { Disposable } from '../../../../shared/lifecycle';
import type { RemoteRuntimeProbe, SshConnectionState, SshTarget } from '../../../../shared/model';
import type { Dialer } from '../streaming';
import { backoffDelay, defaultBackoff, type BackoffOptions } from './backoff';
import { GrpcBridge } from './bridge';
import { ChannelStream } from './channel-stream';
import {
  defaultConfigPaths,
  defaultEnvironment,
  loadSshConfig,
  resolveRoute,
  type SshEnvironment,
} from './config';
import {
  connectionLostError,
  describeState,
  dropReason,
  notConnectedError,
  tunnelCancelled,
  toChannelError,
} from './errors';
import { planHop, type HopOptions } from './hop-plan';
import { connectRoute, type HopPlan } from './hops';
import { LazySftp } from './lazy-sftp';
import {
  FileFollower,
  type ChunkHandler,
  type FollowOptions,
  type RemoteFile,
  type SftpFiles,
} from './remote-files';
import { remoteIds } from './remote-ids';
import { locateRuntime } from './runtime-probe';
import type { ClientChannel, Ssh2Client } from './ssh2';

export interface SshConnectOptions extends HopOptions {
  readonly target: SshTarget;
  /** ssh_config files, first value wins; default ~/.ssh/config then /etc/ssh/ssh_config. */
  readonly configPaths?: readonly string[];
  readonly environment?: Partial<SshEnvironment>;
  readonly reconnect?: Partial<BackoffOptions>;
  /** Where the bridge's private dir is made; os.tmpdir() by default. */
  readonly tempRoot?: string;
  /** Aborts the initial connect. */
  readonly signal?: AbortSignal;
}

/** Failures a retry can't fix: the user must act (or was asked, and said no). */
const permanentCodes = new Set([
  'permission-denied',
  'unauthenticated',
  'cancelled',
  'invalid-argument',
  'unimplemented',
]);

export class SshNodeConnection implements Disposable {
  private clients: Ssh2Client[] | undefined;
  private current: SshConnectionState;
  private readonly stateChanged = new Emitter<SshConnectionState>();
  /**
   * Everything open on the connection. `abandon` ends it with an error (the connection
   * dropped); `release` ends it quietly (we were disposed: the owner is shutting down, and
   * an 'error' event nobody listens to any more would crash the process).
   */
  private readonly live = new Set<{ abandon(error: AppError): void; release(): void }>();
  private readonly sftp: LazySftp;
  private retryTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private reconnecting: Promise<void> | undefined;
  private bridge: GrpcBridge | undefined;
  private runtimePath = '';
  private probes: readonly RemoteRuntimeProbe[] = [];
  private disposed = false;
  private readonly backoff: BackoffOptions;

  private constructor(
    /** The node's name in messages and the UI. */
    readonly name: string,
    private readonly plans: readonly HopPlan[],
    clients: Ssh2Client[],
    backoff: Partial<BackoffOptions> | undefined,
    /** What reading the SSH config left unsaid (an ignored option…). */
    private readonly configWarnings: readonly string[] = [],
  ) {
    this.backoff = { ...defaultBackoff, ...backoff };
    this.sftp = new LazySftp(name, () => this.requireClient());
    this.current = { state: 'connected', since: Date.now() };
    this.adopt(clients);
  }

  /**
   * Connects (asking about host keys and passphrases as needed), finds the runtime socket
   * and opens the bridge. Rejects with an AppError and leaves nothing behind on failure.
   */
  static async connect(options: SshConnectOptions): Promise<SshNodeConnection> {
    const env: SshEnvironment = { ...defaultEnvironment(), ...options.environment };
    const target = options.target;
    const name = target.name ?? target.host;
    const loaded = await loadSshConfig(options.configPaths ?? defaultConfigPaths(env), env);
    const route = resolveRoute(
      loaded,
      {
        host: target.host,
        ...(target.user !== undefined && { user: target.user }),
        ...(target.port !== undefined && { port: target.port }),
        ...(target.identityFiles !== undefined && { identityFiles: target.identityFiles }),
        ...(target.identitiesOnly !== undefined && { identitiesOnly: target.identitiesOnly }),
        ...(target.proxyJump !== undefined && { proxyJump: target.proxyJump }),
      },
      env,
    );
    const plans = route.map((host, index) =>
      planHop(host, index === route.length - 1, name, target, options),
    );
    const clients = await connectRoute(plans, options.signal);
    const connection = new SshNodeConnection(
      name,
      plans,
      clients,
      options.reconnect,
      loaded.warnings,
    );
    try {
      const runtime = await locateRuntime(
        {
          node: name,
          user: plans.at(-1)!.host.user,
          files: () => connection.files(),
          openStreamLocal: (path) => connection.openStreamLocal(path),
          ids: () =>
            remoteIds(
              name,
              plans.at(-1)!.host.user,
              () => connection.requireClient(),
              () => connection.files(),
            ),
        },
        target.runtimeEndpoint,
      );
      connection.runtimePath = runtime.path;
      connection.probes = runtime.probes;
      connection.bridge = await GrpcBridge.create({
        label: name,
        ...(options.tempRoot !== undefined && { tempRoot: options.tempRoot }),
        unavailable: () => connection.unavailableError(),
        open: () => connection.openStreamLocal(connection.runtimePath),
      });
    } catch (error) {
      connection.dispose();
      throw error;
    }
    return connection;
  }

  /** `unix:///tmp/porthole-ssh-…/cri.sock`: give it to CriClient.create. */
  get endpoint(): string {
    return this.requireBridge().endpoint;
  }

  /** The private temp dir holding the bridge socket (removed on dispose). */
  get bridgeDir(): string {
    return this.requireBridge().dir;
  }

  /** The runtime socket on the node, e.g. /run/containerd/containerd.sock. */
  get runtimeSocketPath(): string {
    return this.runtimePath;
  }

  /** What probing found at the well-known sockets (empty when the endpoint was given). */
  get runtimeProbes(): readonly RemoteRuntimeProbe[] {
    return this.probes;
  }

  /** Problems that did not stop the connection (known_hosts not writable, an ignored option…). */
  get warnings(): readonly string[] {
    return [...this.configWarnings, ...this.plans.flatMap((plan) => plan.hostKeys.warnings)];
  }

  get state(): SshConnectionState {
    return this.current;
  }

  readonly onDidChangeState: Event<SshConnectionState> = this.stateChanged.event;

  /**
   * Opens a byte stream to host:port as the node sees it (a direct-tcpip channel): stream
   * URLs point at the node's loopback. TLS for https URLs is layered on top by the caller.
   */
  readonly dialer: Dialer = async (host, port, signal) => {
    const client = this.requireClient();
    if (signal?.aborted) throw tunnelCancelled(this.name);
    const channel = await new Promise<ClientChannel>((resolve, reject) =>
      client.forwardOut('127.0.0.1', 0, host, port, (error, opened) =>
        error
          ? reject(this.channelError(client, error, `${host}:${port}`, 'tcp'))
          : resolve(opened),
      ),
    );
    if (signal?.aborted) {
      channel.close();
      throw tunnelCancelled(this.name);
    }
    return this.track(channel, signal);
  };

  /** Opens a stream to a unix socket on the node (the runtime's, for the bridge). */
  async openStreamLocal(path: string): Promise<Duplex> {
    const client = this.requireClient();
    const channel = await new Promise<ClientChannel>((resolve, reject) =>
      client.openssh_forwardOutStreamLocal(path, (error, opened) =>
        error ? reject(this.channelError(client, error, path, 'streamlocal')) : resolve(opened),
      ),
    );
    return this.track(channel);
  }

  /** Opens a file on the node for reading (SFTP). */
  async openRemoteFile(path: string): Promise<RemoteFile> {
    return (await this.files()).open(path);
  }

  /** Creates a directory on the node and its missing parents (SFTP; `mkdir -p`). */
  async makeRemoteDirectory(path: string): Promise<void> {
    await (await this.files()).makeDirectories(path);
  }

  /** Up to `length` bytes of a file on the node from `offset`. */
  async readRemoteFile(path: string, offset: number, length: number): Promise<Buffer> {
    return (await this.files()).readRange(path, offset, length);
  }

  /**
   * Follows a file on the node (a container log): `onChunk` gets what is there from
   * `fromOffset` and then whatever is appended, across rotation. Ends with `onError` when
   * the connection drops (resume from the last offset seen once it is back).
   */
  followRemoteFile(path: string, options: FollowOptions, onChunk: ChunkHandler): Disposable {
    // Registered as live so that a drop ends it with the connection-lost error.
    const entry = {
      abandon: (error: AppError): void => follower.stop(error),
      release: (): void => follower.dispose(),
    };
    const follower = new FileFollower(
      this.name,
      () => this.files(),
      path,
      {
        ...options,
        onError: (error) => {
          this.live.delete(entry);
          options.onError?.(error);
        },
      },
      onChunk,
    );
    this.live.add(entry);
    return {
      dispose: () => {
        this.live.delete(entry);
        follower.dispose();
      },
    };
  }

  /**
   * From `disconnected`: tries again now (with a fresh retry budget). While reconnecting:
   * skips the wait. Resolves once connected; rejects with the attempt's error.
   */
  async reconnect(): Promise<void> {
    if (this.disposed) throw this.closedError();
    if (this.clients !== undefined) return;
    if (this.current.state === 'disconnected') this.attempt = 0;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.tryReconnect();
    if (this.clients === undefined) {
      throw new AppError({
        code: 'unavailable',
        message: `Could not reconnect to ${this.name}.`,
        detail: this.current.state === 'connected' ? undefined : describeState(this.current),
      });
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    for (const item of [...this.live]) item.release();
    this.live.clear();
    // The bridge does not exist yet when connect failed half-way.
    this.bridge?.dispose();
    this.closeClients();
    this.setState({ state: 'disconnected', reason: 'closed by Porthole' });
    this.stateChanged.dispose();
  }

  // ---- internals ------------------------------------------------------------------

  private adopt(clients: Ssh2Client[]): void {
    this.clients = clients;
    let reason: string | undefined;
    const onGone = (): void => {
      if (this.clients !== clients) return;
      this.dropped(reason ?? 'the server closed the connection');
    };
    clients.forEach((client, index) => {
      // A jump host's drop takes the node with it; say which one went.
      const hop = index < clients.length - 1 ? `jump host ${this.plans[index]!.host.alias}: ` : '';
      client.on('error', (error: Error) => {
        reason ??= `${hop}${dropReason(error)}`;
      });
      client.once('end', onGone);
      client.once('close', onGone);
    });
  }

  private dropped(reason: string): void {
    if (this.disposed) return;
    this.closeClients();
    this.sftp.forget();
    const error = connectionLostError(this.name, reason);
    for (const item of [...this.live]) item.abandon(error);
    this.live.clear();
    this.bridge?.dropAll();
    this.attempt = 0;
    this.scheduleRetry(reason);
  }

  private scheduleRetry(reason: string, lastError?: string): void {
    if (this.disposed) return;
    this.attempt += 1;
    if (this.attempt > this.backoff.maxAttempts) {
      this.setState({
        state: 'disconnected',
        reason: `gave up after ${this.backoff.maxAttempts} attempts: ${lastError ?? reason}`,
        errorCode: 'unavailable',
      });
      return;
    }
    const delay = backoffDelay(this.attempt, this.backoff);
    this.setState({
      state: 'reconnecting',
      reason,
      attempt: this.attempt,
      nextAttemptAt: Date.now() + delay,
      ...(lastError !== undefined && { lastError }),
    });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.tryReconnect();
    }, delay);
  }

  /** One attempt; never rejects. Concurrent callers share it. */
  private tryReconnect(): Promise<void> {
    this.reconnecting ??= this.reconnectOnce().finally(() => {
      this.reconnecting = undefined;
    });
    return this.reconnecting;
  }

  private async reconnectOnce(): Promise<void> {
    const reason =
      this.current.state === 'connected' ? 'reconnecting' : describeState(this.current);
    try {
      const clients = await connectRoute(this.plans, undefined);
      if (this.disposed) {
        for (const client of clients.reverse()) client.end();
        return;
      }
      this.adopt(clients);
      this.attempt = 0;
      this.setState({ state: 'connected', since: Date.now() });
      this.bridge?.refresh();
    } catch (error) {
      if (this.disposed) return;
      const appError = isAppError(error)
        ? error
        : new AppError({ code: 'internal', message: String(error) });
      if (permanentCodes.has(appError.code)) {
        this.setState({
          state: 'disconnected',
          reason: appError.message,
          errorCode: appError.code,
        });
        return;
      }
      const why = this.current.state === 'reconnecting' ? this.current.reason : reason;
      this.scheduleRetry(why, appError.message);
    }
  }

  private setState(state: SshConnectionState): void {
    this.current = state;
    // A listener's bug stops neither the others nor the state machine (Emitter.fire).
    this.stateChanged.fire(state);
  }

  private closeClients(): void {
    const clients = this.clients;
    this.clients = undefined;
    for (const client of [...(clients ?? [])].reverse()) {
      client.on('error', () => {});
      client.end();
    }
  }

  private requireBridge(): GrpcBridge {
    if (this.bridge === undefined) throw this.closedError();
    return this.bridge;
  }

  private requireClient(): Ssh2Client {
    if (this.disposed) throw this.closedError();
    const client = this.clients?.at(-1);
    if (client === undefined) throw this.unavailableError()!;
    return client;
  }

  private unavailableError(): AppError | undefined {
    if (this.disposed) return this.closedError();
    if (this.clients !== undefined) return undefined;
    const state = this.current;
    return notConnectedError(
      this.name,
      state.state === 'connected' ? { state: 'disconnected', reason: 'not connected' } : state,
    );
  }

  private closedError(): AppError {
    return new AppError({
      code: 'cancelled',
      message: `The SSH connection to ${this.name} was closed.`,
    });
  }

  /** A channel that did not open: refused by the server, or lost with the connection. */
  private channelError(
    client: Ssh2Client,
    error: Error,
    what: string,
    kind: 'tcp' | 'streamlocal',
  ): AppError {
    if (this.clients?.at(-1) === client) return toChannelError(error, this.name, what, kind);
    return this.disposed
      ? this.closedError()
      : connectionLostError(this.name, `while opening a channel to ${what}`);
  }

  private track(channel: ClientChannel, signal?: AbortSignal): Duplex {
    const stream = new ChannelStream(channel);
    this.live.add(stream);
    stream.once('close', () => {
      this.live.delete(stream);
      signal?.removeEventListener('abort', onAbort);
    });
    const onAbort = (): void => {
      stream.destroy(tunnelCancelled(this.name));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    return stream;
  }

  private files(): Promise<SftpFiles> {
    return this.sftp.files();
  }
}
