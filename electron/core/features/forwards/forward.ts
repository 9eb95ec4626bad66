/**
 * One port forward: local listeners that stay open for the forward's whole life, and a link
 * (a sandbox plus a transport into it) that is re-established whenever it is lost.
 *
 *   starting ──▶ active ◀──▶ reconnecting
 *      │            │              │
 *      └────────────┴──────────────┴──▶ failed | stopped   (final: everything closed)
 *
 * The link is lost when the SPDY session ends, or when the sandbox is gone or not ready
 * (checked every `healthIntervalMs`, and at once after a connection failed). Reconnecting
 * looks the pod up again by its namespace/name (or labels), with bounded backoff, and gives
 * up after `reconnectTimeoutMs`. Meanwhile the listeners stay open on the same ports; new
 * connections wait (paused, nothing read) up to `connectionWaitMs`, then are refused with
 * the reason recorded on the connection.
 */
import type { Socket } from 'node:net';
import { AppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type {
  ForwardPod,
  ForwardSnapshot,
  ForwardSpec,
  ForwardState,
  ForwardStateName,
  ForwardTransportInfo,
} from '../../../../shared/model';
import type { Dialer, StreamTlsOptions } from '../../base/streaming';
import {
  Bridge,
  connectPortForward,
  formatAddress,
  listenAll,
  type LocalListener,
  type PortForwardTransport,
  type RemoteConnection,
} from '../../base/streaming/portforward';
import type { SpdyUpgrade } from '../../base/streaming/spdy';
import { Backoff, sleep } from './backoff';
import { ConnectionTable, type ConnectionRecord } from './connections';
import { Emitter, type Event } from '../../../../shared/event';
import {
  describeIdentity,
  findReadyPod,
  identityOf,
  isPodReady,
  type ForwardRuntime,
  type PodIdentity,
} from './resolve';
import { validateSpec } from './spec';
import { cancelled, isPermanent, protocolFailure, toAppError } from './failures';
import { defaultForwardTiming, type ForwardTiming } from './timing';
import { TransportWaiters } from './waiters';

/** What a forward needs from its node. */
export interface ForwardDependencies {
  readonly runtime: ForwardRuntime;
  /** How the node's stream server is reached (default: TCP from here; SSH: a tunnel). */
  readonly dialer?: Dialer;
  readonly tls?: StreamTlsOptions;
  /** Replaces the SPDY upgrade (tests force a refusal with it). */
  readonly upgradeSpdy?: SpdyUpgrade;
  readonly timing?: Partial<ForwardTiming>;
}

interface Link {
  readonly pod: ForwardPod;
  readonly transport: PortForwardTransport;
  readonly subscription: Disposable;
}

function clientOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '?';
  return formatAddress(address, socket.remotePort ?? 0);
}

function describeTransport(info: ForwardTransportInfo): string {
  return `${info.kind === 'spdy' ? 'SPDY' : 'WebSocket'} (${info.protocol})`;
}

export class Forward implements Disposable {
  private readonly timing: ForwardTiming;
  private readonly table = new ConnectionTable();
  private readonly changeEmitter = new Emitter<ForwardSnapshot>();
  /** Fires on every state change at once, and at most every `metricsIntervalMs` for traffic. */
  readonly onDidChange: Event<ForwardSnapshot> = this.changeEmitter.event;
  /** Aborted when the forward ends: cancels RPCs, upgrades and backoff sleeps. */
  private readonly controller = new AbortController();

  private state: ForwardState;
  private identity: PodIdentity;
  private pod: ForwardPod | undefined;
  private transportInfo: ForwardTransportInfo | undefined;
  private listeners: LocalListener[] = [];
  private link: Link | undefined;
  private reconnecting: Promise<void> | undefined;
  private readonly bridges = new Set<Bridge>();
  private readonly waiters: TransportWaiters;
  private healthTimer: NodeJS.Timeout | undefined;
  private healthCheck: Promise<void> | undefined;
  private metricsTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    readonly spec: ForwardSpec,
    private readonly deps: ForwardDependencies,
  ) {
    this.timing = { ...defaultForwardTiming, ...deps.timing };
    this.waiters = new TransportWaiters(
      this.timing.connectionWaitMs,
      this.timing.maxWaitingConnections,
    );
    this.identity = identityOf(spec.target);
    this.state = {
      name: 'starting',
      reason: `Starting the forward to ${describeIdentity(this.identity)}.`,
      since: Date.now(),
    };
  }

  get isFinal(): boolean {
    return this.state.name === 'failed' || this.state.name === 'stopped';
  }

  snapshot(): ForwardSnapshot {
    // WebSocket negotiates per connection: report what the latest socket agreed on.
    const transport =
      this.transportInfo !== undefined && this.link !== undefined
        ? { ...this.transportInfo, protocol: this.link.transport.protocol }
        : this.transportInfo;
    return {
      id: this.id,
      spec: this.spec,
      state: this.state,
      ...(this.pod !== undefined && { pod: this.pod }),
      ...(transport !== undefined && { transport }),
      ports: this.listeners.map((listener, index) => ({
        remotePort: this.spec.ports[index]?.remotePort ?? 0,
        localPort: listener.port,
        addresses: listener.addresses,
      })),
      metrics: this.table.metrics(),
      connections: this.table.connections(),
    };
  }

  /**
   * Listens on every port (all or nothing), then finds the pod and connects. Resolves once
   * active; rejects with an AppError (and the forward is `failed`, or `stopped` if it was
   * disposed meanwhile) when a port can't be bound or no pod could be reached in time.
   */
  async start(): Promise<void> {
    try {
      validateSpec(this.spec);
      const listeners = await listenAll(
        this.spec.ports.map((port) => ({
          port: port.localPort,
          ...(this.spec.addresses !== undefined && { addresses: this.spec.addresses }),
        })),
        (socket, index) => this.accept(socket, index),
      );
      if (this.isFinal) {
        for (const listener of listeners) listener.dispose();
        throw cancelled();
      }
      this.listeners = listeners;
      this.setState('starting', `Looking for a ready pod ${describeIdentity(this.identity)}.`);
      await this.establish('starting', this.timing.startTimeoutMs);
    } catch (error) {
      const failure = toAppError(error);
      this.end('failed', failure.message, failure);
      throw this.isFinal && this.state.name === 'stopped' ? cancelled() : failure;
    }
  }

  /** Stops the forward: closes every listener and connection. */
  dispose(): void {
    this.end('stopped', 'Stopped.');
  }

  // ---- the link -----------------------------------------------------------------------

  /**
   * Finds a ready pod and opens a transport into it, retrying with backoff until
   * `timeoutMs`. Resolves once active; rejects with the last error otherwise.
   */
  private async establish(phase: 'starting' | 'reconnecting', timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const backoff = new Backoff(this.timing.backoffInitialMs, this.timing.backoffMaxMs);
    const signal = this.controller.signal;
    const callOptions = { signal, timeoutMs: this.timing.rpcTimeoutMs };
    for (;;) {
      if (this.isFinal) throw cancelled();
      try {
        const pod = await findReadyPod(this.deps.runtime, this.identity, callOptions);
        if (this.isFinal) throw cancelled();
        const connected = await connectPortForward({
          transport: this.spec.transport ?? 'auto',
          ports: this.spec.ports.map((port) => port.remotePort),
          requestUrl: (ports, requestSignal) =>
            this.deps.runtime.portForward(
              { podSandboxId: pod.podSandboxId, port: [...ports] },
              { signal: requestSignal ?? signal, timeoutMs: this.timing.rpcTimeoutMs },
            ),
          signal,
          upgradeTimeoutMs: this.timing.upgradeTimeoutMs,
          pairTimeoutMs: this.timing.pairTimeoutMs,
          ...(this.deps.dialer !== undefined && { dialer: this.deps.dialer }),
          ...(this.deps.tls !== undefined && { tls: this.deps.tls }),
          ...(this.deps.upgradeSpdy !== undefined && { upgradeSpdy: this.deps.upgradeSpdy }),
        });
        if (this.isFinal) {
          connected.transport.dispose();
          throw cancelled();
        }
        this.attach(pod, connected.transport, connected.fallbackReason);
        return;
      } catch (error) {
        const failure = toAppError(error);
        if (this.isFinal || isPermanent(failure)) throw failure;
        this.table.noteError(failure);
        const delay = backoff.next();
        if (Date.now() + delay > deadline) {
          throw new AppError(
            {
              code: failure.code === 'not-found' ? 'not-found' : 'unavailable',
              message: `Gave up after ${Math.round(timeoutMs / 1000)} s: ${failure.message}`,
              ...(failure.detail !== undefined && { detail: failure.detail }),
              ...(failure.hint !== undefined && { hint: failure.hint }),
            },
            { cause: failure },
          );
        }
        this.setState(phase, failure.message, failure);
        await sleep(delay, signal);
      }
    }
  }

  private attach(pod: ForwardPod, transport: PortForwardTransport, fallbackReason?: string): void {
    // A sandbox target picks the pod to start with; from then on it is followed by name.
    if (this.identity.kind === 'sandbox') {
      this.identity = { kind: 'name', namespace: pod.namespace, name: pod.name };
    }
    const subscription = transport.onDidClose((error) => {
      if (this.link?.transport !== transport) return;
      this.lose(
        error === undefined
          ? "The runtime's stream server ended the session."
          : `The session with the runtime's stream server was lost: ${error.message}`,
        error,
      );
    });
    this.link = { pod, transport, subscription };
    this.pod = pod;
    this.transportInfo = {
      kind: transport.kind,
      protocol: transport.protocol,
      ...(fallbackReason !== undefined && { fallbackReason }),
    };
    this.setState(
      'active',
      `Forwarding to ${pod.namespace}/${pod.name} over ${describeTransport(this.transportInfo)}.`,
    );
    this.scheduleHealthCheck();
    this.waiters.resolveAll(transport);
  }

  /** The link is gone: drop it and look for the pod again, keeping the listeners. */
  private lose(reason: string, error?: AppError): void {
    if (this.isFinal) return;
    if (error?.code === 'protocol-error') {
      this.failOnProtocol(error);
      return;
    }
    this.dropLink();
    if (error !== undefined) this.table.noteError(error);
    this.setState('reconnecting', reason, error);
    if (this.reconnecting !== undefined) return;
    this.reconnecting = this.establish('reconnecting', this.timing.reconnectTimeoutMs).then(
      () => {
        this.reconnecting = undefined;
      },
      (failure: unknown) => {
        this.reconnecting = undefined;
        const appError = toAppError(failure);
        this.end('failed', appError.message, appError);
      },
    );
  }

  private dropLink(): void {
    const link = this.link;
    if (link === undefined) return;
    this.link = undefined;
    this.clearHealthCheck();
    link.subscription.dispose();
    // Connections still on it are dead already (the sandbox is gone) or about to be.
    link.transport.dispose();
  }

  // ---- health -------------------------------------------------------------------------

  private scheduleHealthCheck(): void {
    this.clearHealthCheck();
    if (this.isFinal || this.link === undefined) return;
    this.healthTimer = setTimeout(() => {
      this.healthTimer = undefined;
      this.checkHealthNow();
    }, this.timing.healthIntervalMs);
    // The listeners keep the process alive while the forward runs; this timer never should.
    this.healthTimer.unref();
  }

  private clearHealthCheck(): void {
    if (this.healthTimer !== undefined) clearTimeout(this.healthTimer);
    this.healthTimer = undefined;
  }

  /** Checks the sandbox now (coalesced with a check in flight), then on the usual interval. */
  private checkHealthNow(): void {
    if (this.healthCheck !== undefined || this.link === undefined) return;
    const link = this.link;
    this.healthCheck = isPodReady(this.deps.runtime, link.pod.podSandboxId, {
      signal: this.controller.signal,
      timeoutMs: this.timing.rpcTimeoutMs,
    }).then((ready) => {
      this.healthCheck = undefined;
      if (this.link !== link) return;
      if (ready === false) {
        this.lose(
          `The pod sandbox of ${link.pod.namespace}/${link.pod.name} (${link.pod.podSandboxId.slice(0, 13)}) is gone or not ready; waiting for a ready pod ${describeIdentity(this.identity)}.`,
        );
        return;
      }
      this.scheduleHealthCheck();
    });
  }

  // ---- connections --------------------------------------------------------------------

  private accept(socket: Socket, index: number): void {
    const port = this.spec.ports[index];
    if (port === undefined || this.isFinal) {
      socket.destroy();
      return;
    }
    const record = this.table.add(
      socket.localPort ?? port.localPort,
      port.remotePort,
      clientOf(socket),
    );
    this.metricsChanged();
    void this.serve(socket, record);
  }

  private async serve(socket: Socket, record: ConnectionRecord): Promise<void> {
    // Until the bridge takes over: a client that resets while waiting is not an error.
    const ignore = (): void => undefined;
    socket.on('error', ignore);
    let failure: AppError | undefined;
    try {
      const transport = await this.usableTransport();
      if (socket.destroyed) return;
      record.state = 'connecting';
      this.metricsChanged();
      let remote: RemoteConnection;
      try {
        remote = await transport.open(record.remotePort);
      } catch (error) {
        // A broken session or a vanished sandbox shows up here first: look now.
        this.checkHealthNow();
        throw error;
      }
      if (socket.destroyed || this.isFinal) {
        remote.close();
        return;
      }
      record.state = 'open';
      this.metricsChanged();
      const bridge = new Bridge(socket, remote, {
        onBytesIn: (count) => {
          record.bytesIn += count;
          this.metricsChanged();
        },
        onBytesOut: (count) => {
          record.bytesOut += count;
          this.metricsChanged();
        },
      });
      this.bridges.add(bridge);
      const end = await bridge.done;
      this.bridges.delete(bridge);
      failure = end.error;
      if (failure !== undefined && !this.isFinal) this.checkHealthNow();
    } catch (error) {
      failure = toAppError(error);
      if (!socket.destroyed) socket.resetAndDestroy();
    } finally {
      socket.off('error', ignore);
      // A stop ends connections on purpose: that is not their failure. A forward that
      // failed cut them short: its reason is theirs, unless they had their own.
      const final = this.isFinal ? this.failure() : undefined;
      this.table.end(
        record,
        this.isFinal ? (failure?.code === 'protocol-error' ? failure : final) : failure,
      );
      this.metricsChanged();
      if (failure?.code === 'protocol-error') this.failOnProtocol(failure);
    }
  }

  /** Why the forward failed, once it has; undefined while it runs or after a stop. */
  private failure(): AppError | undefined {
    const error = this.state.name === 'failed' ? this.state.error : undefined;
    return error === undefined ? undefined : new AppError(error);
  }

  private failOnProtocol(error: AppError): void {
    if (this.isFinal) return;
    const failure = protocolFailure(error);
    this.end('failed', failure.message, failure);
  }

  /** The current transport, or a wait (bounded) for the forward to get one. */
  private usableTransport(): Promise<PortForwardTransport> {
    const link = this.link;
    if (link !== undefined && !link.transport.closed) return Promise.resolve(link.transport);
    if (this.isFinal) return Promise.reject(cancelled());
    return this.waiters.wait(() => this.state.reason);
  }

  // ---- state --------------------------------------------------------------------------

  private setState(name: ForwardStateName, reason: string, error?: AppError): void {
    if (this.isFinal) return;
    const same = this.state.name === name;
    this.state = {
      name,
      reason,
      // The time the forward entered this state, not the last time its reason changed.
      since: same ? this.state.since : Date.now(),
      ...(error !== undefined && { error: error.toJSON() }),
    };
    this.emitNow();
  }

  /** Final: closes everything this forward owns, then reports the final state. */
  private end(name: 'failed' | 'stopped', reason: string, error?: AppError): void {
    if (this.isFinal) return;
    if (error !== undefined) this.table.noteError(error);
    this.state = {
      name,
      reason,
      since: Date.now(),
      ...(error !== undefined && { error: error.toJSON() }),
    };
    this.controller.abort();
    this.clearHealthCheck();
    if (this.metricsTimer !== undefined) clearTimeout(this.metricsTimer);
    this.metricsTimer = undefined;
    this.waiters.rejectAll(cancelled);
    for (const bridge of this.bridges) bridge.dispose();
    this.bridges.clear();
    this.dropLink();
    for (const listener of this.listeners) listener.dispose();
    this.listeners = [];
    this.emitNow();
    this.changeEmitter.dispose();
  }

  private emitNow(): void {
    if (this.metricsTimer !== undefined) clearTimeout(this.metricsTimer);
    this.metricsTimer = undefined;
    this.changeEmitter.fire(this.snapshot());
  }

  /** Traffic and connection counts: coalesced, so a busy forward doesn't flood its UI. */
  private metricsChanged(): void {
    if (this.metricsTimer !== undefined || this.isFinal) return;
    this.metricsTimer = setTimeout(() => {
      this.metricsTimer = undefined;
      this.changeEmitter.fire(this.snapshot());
    }, this.timing.metricsIntervalMs);
    this.metricsTimer.unref();
  }
}
