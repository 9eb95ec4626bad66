/**
 * Every port forward of every node, as the port-forwards view manages them: definitions
 * (saved in forwards.json or not) with stable ids, each running at most once on the
 * ForwardSupervisor of its node. Stopping keeps the definition; starting again runs it
 * again under the same id, on the same local ports where it can. Every run is a session in
 * the monitor. A node that disconnects stops its forwards (they say why); saved forwards
 * marked auto-start start whenever their node connects.
 */
import { randomUUID } from 'node:crypto';
import { AppError, toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import { DisposableStore, type Disposable } from '../../../../shared/lifecycle';
import type {
  ForwardEntry,
  ForwardOptions,
  ForwardSnapshot,
  ForwardSpec,
} from '../../../../shared/model';
import { Emitter, type Event } from '../../base/emitter';
import { addressesBeyondLoopback, ForwardSupervisor, type ForwardTiming } from './index';
import type { SessionRegistry } from '../sessions';
import type { NodeClient, NodeManager } from '../nodes';
import { defaultForwardName, describeBinding, sessionTargetOf } from './describe';
import { ForwardSessionMirror, type StopCause } from './session-mirror';
import { ForwardStore, type SavedForward } from './store';
import { logger } from '../../base/log';

const forwardsLog = logger('forwards');

/** What the manager needs of the node manager (tests pass a fake). */
export type ForwardNodes = Pick<
  NodeManager,
  'client' | 'dialer' | 'nodeName' | 'knowsNode' | 'onDidChange'
>;

export interface ForwardManagerOptions {
  readonly nodes: ForwardNodes;
  readonly sessions: SessionRegistry;
  /** Where forwards.json lives. */
  readonly configDir: string;
  readonly timing?: Partial<ForwardTiming>;
  /** Minimum time between two change events caused by traffic alone. Default 250 ms. */
  readonly trafficIntervalMs?: number;
  /** Where skipped entries of forwards.json are reported; default process.emitWarning. */
  readonly warn?: (message: string) => void;
}

interface Definition {
  readonly id: string;
  /** Changed by `move`. */
  nodeId: string;
  /** The node's name as last known: what is shown once the node is removed. */
  nodeName: string;
  readonly spec: ForwardSpec;
  name: string | undefined;
  saved: boolean;
  autoStart: boolean;
}

interface Run {
  readonly nodeId: string;
  readonly supervisor: ForwardSupervisor;
  /** The object handed to the supervisor: its snapshots carry it, which is how they are told apart. */
  readonly spec: ForwardSpec;
  readonly mirror: ForwardSessionMirror;
  readonly startedAt: number;
  forwardId: string | undefined;
  snapshot: ForwardSnapshot | undefined;
  /** Set when Porthole stops it (the user, a disconnect, shutdown), before it ends. */
  cause: StopCause | undefined;
  /** Settles once the run is active (resolves) or over (rejects). */
  started: Promise<void>;
}

interface Entry {
  readonly def: Definition;
  run: Run | undefined;
  lastError: AppErrorData | undefined;
  /** The local ports the last run bound: the next run asks for them again where the spec says 0. */
  lastPorts: readonly number[] | undefined;
  /** The node connection this entry was auto-started for: once per connection. */
  autoStartedFor: NodeClient | undefined;
  /** Whether its node was known at the last node change (else it is orphaned). */
  nodeKnown?: boolean;
}

interface NodeForwards {
  readonly client: NodeClient;
  readonly supervisor: ForwardSupervisor;
  readonly subscription: Disposable;
}

const finalStates: ReadonlySet<string> = new Set(['failed', 'stopped']);

function notFound(forwardId: string): AppError {
  return new AppError({
    code: 'not-found',
    message: `There is no forward "${forwardId}".`,
    hint: 'It may have been removed; the list updates by itself.',
  });
}

/** Did anything but traffic change? Those changes go out at once; traffic is batched. */
function changedBeyondTraffic(
  previous: ForwardSnapshot | undefined,
  next: ForwardSnapshot,
): boolean {
  if (previous === undefined) return true;
  return (
    previous.state !== next.state ||
    previous.ports.length !== next.ports.length ||
    previous.pod?.podSandboxId !== next.pod?.podSandboxId ||
    previous.transport?.kind !== next.transport?.kind ||
    previous.transport?.protocol !== next.transport?.protocol ||
    previous.metrics.lastError?.at !== next.metrics.lastError?.at
  );
}

export class ForwardManager implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly nodeForwards = new Map<string, NodeForwards>();
  private readonly runsBySpec = new WeakMap<ForwardSpec, { entry: Entry; run: Run }>();
  private readonly store: ForwardStore;
  private readonly changeEmitter = new Emitter<readonly ForwardEntry[]>();
  /** Every forward, whole, on every change; traffic-only changes at most every `trafficIntervalMs`. */
  readonly onDidChange: Event<readonly ForwardEntry[]> = this.changeEmitter.event;
  private readonly subscriptions = new DisposableStore();
  private readonly trafficIntervalMs: number;
  private trafficTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Resolves once forwards.json is read and saved forwards of connected nodes started. */
  readonly ready: Promise<void>;

  constructor(private readonly options: ForwardManagerOptions) {
    this.trafficIntervalMs = options.trafficIntervalMs ?? 250;
    this.store = new ForwardStore(options.configDir);
    this.ready = this.load();
  }

  list(): readonly ForwardEntry[] {
    return [...this.entries.values()].map((entry) => this.toEntry(entry));
  }

  /** One forward, or a `not-found` AppError. */
  get(forwardId: string): ForwardEntry {
    return this.toEntry(this.require(forwardId));
  }

  /**
   * Starts a new forward and resolves once it is active. Rejects, keeping nothing, when it
   * can't start or (when asked to save it) can't be saved.
   */
  async create(
    nodeId: string,
    spec: ForwardSpec,
    options: ForwardOptions = {},
  ): Promise<ForwardEntry> {
    await this.ready;
    this.checkOpen();
    if (options.autoStart === true && options.save !== true) {
      throw new AppError({
        code: 'invalid-argument',
        message: 'Only a saved forward can start by itself.',
        hint: 'Save the forward to turn on auto-start.',
      });
    }
    const exposed = addressesBeyondLoopback(spec);
    if (exposed.length > 0 && options.exposeBeyondLoopback !== true) {
      throw new AppError({
        code: 'failed-precondition',
        message: `This forward would listen on ${exposed.join(', ')}, which other machines can reach; it needs the user's confirmation.`,
        hint: 'Ask the user, then create it with exposeBeyondLoopback; or leave the addresses out to listen on this machine only.',
      });
    }
    // Refused at once when the node is not connected: nothing is kept.
    const client = this.options.nodes.client(nodeId);
    const name = options.name === '' ? undefined : options.name;
    const entry: Entry = {
      def: {
        id: `forward-${randomUUID()}`,
        nodeId,
        nodeName: this.options.nodes.nodeName(nodeId),
        spec,
        name,
        saved: options.save === true,
        autoStart: options.autoStart === true,
      },
      run: undefined,
      lastError: undefined,
      lastPorts: undefined,
      // Started now: auto-start is for the node's next connection.
      autoStartedFor: client,
    };
    this.entries.set(entry.def.id, entry);
    try {
      await this.startEntry(entry);
      if (entry.def.saved) await this.store.save(this.savedOf(entry.def));
    } catch (error) {
      this.forget(entry);
      throw error;
    }
    return this.toEntry(entry);
  }

  /** Starts a stopped forward (resolves once active); a running one is left as it is. */
  async start(forwardId: string): Promise<ForwardEntry> {
    await this.ready;
    this.checkOpen();
    const entry = this.require(forwardId);
    await this.startEntry(entry);
    return this.toEntry(entry);
  }

  /** Stops it, closing its ports and connections; the forward stays listed. */
  async stop(forwardId: string): Promise<ForwardEntry> {
    await this.ready;
    const entry = this.require(forwardId);
    this.stopEntry(entry, { reason: 'Stopped.' });
    return this.toEntry(entry);
  }

  async restart(forwardId: string): Promise<ForwardEntry> {
    await this.ready;
    this.checkOpen();
    const entry = this.require(forwardId);
    this.stopEntry(entry, { reason: 'Restarted.' });
    await this.startEntry(entry);
    return this.toEntry(entry);
  }

  /** Renames it, saves or unsaves it, turns auto-start on or off. */
  async update(forwardId: string, options: ForwardOptions): Promise<ForwardEntry> {
    await this.ready;
    const entry = this.require(forwardId);
    const def = entry.def;
    const saved = options.save ?? def.saved;
    const autoStart = saved && (options.autoStart ?? def.autoStart);
    if (options.autoStart === true && !saved) {
      throw new AppError({
        code: 'invalid-argument',
        message: 'Only a saved forward can start by itself.',
        hint: 'Save the forward to turn on auto-start.',
      });
    }
    const name =
      options.name === undefined ? def.name : options.name === '' ? undefined : options.name;
    const next: Definition = { ...def, name, saved, autoStart };
    // The file first: the list shows what is really saved.
    if (next.saved) await this.store.save(this.savedOf(next));
    else if (def.saved) await this.store.remove(def.id);
    // Turned on now: it starts with the node's next connection, not with the next
    // unrelated node change.
    if (next.autoStart && !def.autoStart) entry.autoStartedFor = this.clientOf(def.nodeId);
    def.name = next.name;
    def.saved = next.saved;
    def.autoStart = next.autoStart;
    this.changed(true);
    return this.toEntry(entry);
  }

  /** Stops it and forgets it, saved or not. */
  async remove(forwardId: string): Promise<void> {
    await this.ready;
    const entry = this.require(forwardId);
    if (entry.def.saved) await this.store.remove(entry.def.id);
    this.stopEntry(entry, { reason: 'Removed.' });
    this.forget(entry);
  }

  /**
   * Points the forward at another node Porthole knows: stopped on the old node, started on
   * the new one if it was running (when that node is connected; otherwise it says why),
   * and an auto-start forward starts whenever the new node connects.
   */
  async move(forwardId: string, nodeId: string): Promise<ForwardEntry> {
    await this.ready;
    this.checkOpen();
    const entry = this.require(forwardId);
    const def = entry.def;
    if (!this.options.nodes.knowsNode(nodeId)) {
      throw new AppError({
        code: 'not-found',
        message: `There is no node "${nodeId}" to move ${this.toEntry(entry).name} to.`,
        hint: 'Pick a node from the node list.',
      });
    }
    if (def.nodeId === nodeId) return this.toEntry(entry);
    const nodeName = this.options.nodes.nodeName(nodeId);
    const wasRunning = entry.run !== undefined;
    const next: Definition = { ...def, nodeId, nodeName };
    // The file first: the list shows what is really saved.
    if (def.saved) await this.store.save(this.savedOf(next));
    this.stopEntry(entry, { reason: `Moved to ${nodeName}.` });
    def.nodeId = nodeId;
    def.nodeName = nodeName;
    entry.lastError = undefined;
    entry.autoStartedFor = undefined;
    this.changed(true);
    if (wasRunning) {
      // Where the new node is not connected, the entry says so (its last error).
      await this.startEntry(entry).catch(
        forwardsLog.failure(
          `Forward ${this.toEntry(entry).name} did not start on ${nodeName}`,
          'info',
        ),
      );
    } else {
      this.reconcileNodes();
    }
    return this.toEntry(entry);
  }

  /** Removes every forward of a node (it is being removed, with its forwards). */
  async removeForNode(nodeId: string): Promise<void> {
    await this.ready;
    for (const entry of [...this.entries.values()]) {
      if (entry.def.nodeId === nodeId) await this.remove(entry.def.id);
    }
  }

  /**
   * The node is being removed and its forwards kept: they stop, saying why and what to
   * do, and saved ones keep its name (forwards.json) to be shown as where they were.
   */
  async keepForRemovedNode(nodeId: string): Promise<void> {
    await this.ready;
    const name = this.options.nodes.nodeName(nodeId);
    for (const entry of [...this.entries.values()]) {
      if (entry.def.nodeId !== nodeId) continue;
      entry.def.nodeName = name;
      if (entry.def.saved) await this.store.save(this.savedOf(entry.def));
      const cause: StopCause = {
        reason: `Stopped: ${name} was removed.`,
        error: {
          code: 'failed-precondition',
          message: `Stopped because ${name} was removed.`,
          hint: 'Move it to another node to use it again.',
        },
      };
      if (entry.run !== undefined) this.stopEntry(entry, cause);
      else entry.lastError = cause.error;
    }
    this.changed(true);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of this.entries.values()) {
      this.stopEntry(entry, { reason: 'Porthole is shutting down.' });
    }
    for (const nodeId of [...this.nodeForwards.keys()]) this.closeNode(nodeId);
    this.subscriptions.dispose();
    if (this.trafficTimer !== undefined) clearTimeout(this.trafficTimer);
    this.trafficTimer = undefined;
    this.changeEmitter.dispose();
  }

  // ---- loading and nodes ------------------------------------------------------------

  private async load(): Promise<void> {
    const { warnings } = await this.store.load();
    const warn = this.options.warn ?? ((message: string) => process.emitWarning(message));
    for (const warning of warnings) warn(warning);
    if (this.disposed) return;
    for (const saved of this.store.list()) {
      this.entries.set(saved.id, {
        def: {
          id: saved.id,
          nodeId: saved.nodeId,
          nodeName: saved.nodeName ?? saved.nodeId,
          spec: saved.spec,
          name: saved.name,
          saved: true,
          autoStart: saved.autoStart,
        },
        run: undefined,
        lastError: undefined,
        lastPorts: undefined,
        autoStartedFor: undefined,
      });
    }
    this.subscriptions.add(this.options.nodes.onDidChange(() => this.reconcileNodes()));
    this.reconcileNodes();
    this.changed(true);
  }

  /** The client of a connected node; undefined when it is not connected. */
  private clientOf(nodeId: string): NodeClient | undefined {
    try {
      return this.options.nodes.client(nodeId);
    } catch {
      return undefined;
    }
  }

  /**
   * After any node change: forwards of a node whose connection closed (or was replaced)
   * stop, saying why; saved auto-start forwards of a newly connected node start.
   */
  private reconcileNodes(): void {
    if (this.disposed) return;
    // Remember names while the nodes are known: a removed node's forwards still show it.
    let orphansChanged = false;
    for (const entry of this.entries.values()) {
      const name = this.options.nodes.knowsNode(entry.def.nodeId)
        ? this.options.nodes.nodeName(entry.def.nodeId)
        : undefined;
      if (name !== undefined) entry.def.nodeName = name;
      if (entry.nodeKnown !== (name !== undefined)) orphansChanged = true;
      entry.nodeKnown = name !== undefined;
    }
    if (orphansChanged) this.changed(true);
    for (const [nodeId, node] of [...this.nodeForwards]) {
      if (this.clientOf(nodeId) !== node.client) this.closeNode(nodeId);
    }
    for (const entry of this.entries.values()) {
      const def = entry.def;
      if (!def.saved || !def.autoStart || entry.run !== undefined) continue;
      const client = this.clientOf(def.nodeId);
      if (client === undefined || entry.autoStartedFor === client) continue;
      entry.autoStartedFor = client;
      const exposed = addressesBeyondLoopback(def.spec);
      if (exposed.length > 0) {
        // Reachable from other machines: never opened unattended; the user starts it.
        entry.lastError = {
          code: 'failed-precondition',
          message: `Not started by itself: it listens on ${exposed.join(', ')}, which other machines can reach.`,
          hint: 'Start it to confirm, or re-create it to listen on this machine only.',
        };
        this.changed(true);
        continue;
      }
      // A failure shows as the forward's last error; the log keeps it too.
      this.startEntry(entry).catch(
        forwardsLog.failure(`Forward ${this.toEntry(entry).name} did not start by itself`, 'warn'),
      );
    }
  }

  /** The node's supervisor, for its current connection; an AppError when not connected. */
  private supervisorFor(nodeId: string): ForwardSupervisor {
    const client = this.options.nodes.client(nodeId);
    const existing = this.nodeForwards.get(nodeId);
    if (existing !== undefined && existing.client === client) return existing.supervisor;
    if (existing !== undefined) this.closeNode(nodeId);
    const supervisor = new ForwardSupervisor({
      runtime: client,
      dialer: this.options.nodes.dialer(nodeId),
      ...(this.options.timing !== undefined && { timing: this.options.timing }),
    });
    const subscription = supervisor.onDidChange((snapshot) => this.onSnapshot(snapshot));
    this.nodeForwards.set(nodeId, { client, supervisor, subscription });
    return supervisor;
  }

  /** The node's connection is gone: its forwards stop (and say so), its supervisor goes. */
  private closeNode(nodeId: string): void {
    const node = this.nodeForwards.get(nodeId);
    if (node === undefined) return;
    this.nodeForwards.delete(nodeId);
    const name = this.options.nodes.nodeName(nodeId);
    for (const entry of this.entries.values()) {
      const run = entry.run;
      if (run === undefined || run.supervisor !== node.supervisor) continue;
      run.cause ??= this.disposed
        ? { reason: 'Porthole is shutting down.' }
        : {
            reason: `Stopped: ${name} was disconnected.`,
            error: {
              code: 'connection-lost',
              message: `Stopped because ${name} was disconnected.`,
              hint:
                entry.def.saved && entry.def.autoStart
                  ? 'It starts again when the node connects.'
                  : 'Start it again once the node is connected.',
            },
          };
    }
    // Each forward reports its final snapshot while the supervisor disposes it.
    node.supervisor.dispose();
    node.subscription.dispose();
    // Runs whose forward never reported (it was refused before it began) end here.
    for (const entry of this.entries.values()) {
      if (entry.run?.supervisor === node.supervisor) this.finishRun(entry, entry.run, undefined);
    }
  }

  // ---- runs ---------------------------------------------------------------------------

  private async startEntry(entry: Entry): Promise<void> {
    if (entry.run !== undefined) return entry.run.started;
    let supervisor: ForwardSupervisor;
    try {
      supervisor = this.supervisorFor(entry.def.nodeId);
    } catch (error) {
      entry.lastError = toAppErrorData(error);
      this.changed(true);
      throw error;
    }
    const { spec, reusesPorts } = this.specForRun(entry);
    try {
      await this.launch(entry, supervisor, spec).started;
    } catch (error) {
      // Asking for the previous run's ports again is a preference: fall back to free ones.
      const taken = error instanceof AppError && error.code === 'already-exists';
      if (!reusesPorts || !taken || entry.run !== undefined || this.disposed) throw error;
      entry.lastPorts = undefined;
      await this.launch(entry, supervisor, { ...entry.def.spec }).started;
    }
  }

  /**
   * The spec for the next run: always a fresh object (see Run.spec); where the spec asks for
   * free ports, the ones the last run had, so a restarted forward keeps its URL.
   */
  private specForRun(entry: Entry): { spec: ForwardSpec; reusesPorts: boolean } {
    const spec = entry.def.spec;
    const last = entry.lastPorts;
    if (last === undefined || !spec.ports.some((port) => port.localPort === 0)) {
      return { spec: { ...spec }, reusesPorts: false };
    }
    return {
      spec: {
        ...spec,
        ports: spec.ports.map((port, index) =>
          port.localPort === 0 ? { ...port, localPort: last[index] ?? 0 } : port,
        ),
      },
      reusesPorts: true,
    };
  }

  private launch(entry: Entry, supervisor: ForwardSupervisor, spec: ForwardSpec): Run {
    const def = entry.def;
    const handle = this.options.sessions.register({
      kind: 'port-forward',
      nodeId: def.nodeId,
      nodeName: this.options.nodes.nodeName(def.nodeId),
      target: sessionTargetOf(def.spec, undefined),
      detail: describeBinding(spec, []),
      kill: () => this.stopEntry(entry, { reason: 'Killed from the session monitor.' }),
    });
    const run: Run = {
      nodeId: def.nodeId,
      supervisor,
      spec,
      mirror: new ForwardSessionMirror(handle, def.spec),
      startedAt: Date.now(),
      forwardId: undefined,
      snapshot: undefined,
      cause: undefined,
      started: Promise.resolve(),
    };
    entry.run = run;
    entry.lastError = undefined;
    this.runsBySpec.set(spec, { entry, run });
    this.changed(true);
    const starting = supervisor.start(spec);
    // The supervisor knows the forward from here on (unless it already failed).
    run.forwardId ??= supervisor.list().find((snapshot) => snapshot.spec === spec)?.id;
    run.started = starting.then(
      (snapshot) => this.onSnapshot(snapshot),
      (error: unknown) => {
        // Normally the forward's final snapshot has ended the run already.
        if (entry.run === run) this.finishRun(entry, run, toAppErrorData(error));
        throw error;
      },
    );
    // Whoever awaits it hears the error (and an auto-start logs it); one nobody awaits
    // must not become an unhandled rejection.
    run.started.catch(() => undefined);
    return run;
  }

  /** Stops the entry's run, if any, synchronously: its final snapshot ends it. */
  private stopEntry(entry: Entry, cause: StopCause): void {
    const run = entry.run;
    if (run === undefined) return;
    run.cause ??= cause;
    if (run.forwardId !== undefined) run.supervisor.stop(run.forwardId);
    // Not known to the supervisor (already gone): end it here.
    if (entry.run === run) this.finishRun(entry, run, undefined);
  }

  private onSnapshot(snapshot: ForwardSnapshot): void {
    const owner = this.runsBySpec.get(snapshot.spec);
    if (owner === undefined) return;
    const { entry, run } = owner;
    if (entry.run !== run) return;
    run.forwardId ??= snapshot.id;
    if (finalStates.has(snapshot.state.name)) {
      this.finishRun(entry, run, undefined, snapshot);
      return;
    }
    const previous = run.snapshot;
    run.snapshot = snapshot;
    if (snapshot.ports.length > 0) entry.lastPorts = snapshot.ports.map((port) => port.localPort);
    run.mirror.update(snapshot);
    this.changed(changedBeyondTraffic(previous, snapshot));
  }

  /** The run is over: the entry stays, stopped, with why (unless the user stopped it). */
  private finishRun(
    entry: Entry,
    run: Run,
    failure: AppErrorData | undefined,
    final?: ForwardSnapshot,
  ): void {
    if (entry.run !== run) return;
    entry.run = undefined;
    this.runsBySpec.delete(run.spec);
    const failed = final?.state.name === 'failed';
    entry.lastError =
      run.cause?.error ??
      (run.cause === undefined
        ? (failure ??
          (failed
            ? (final.state.error ?? { code: 'unknown', message: final.state.reason })
            : undefined))
        : undefined);
    run.mirror.end(final ?? run.snapshot, run.cause, failure);
    // A forward that failed on its own stays in its supervisor until told to go.
    if (run.forwardId !== undefined) run.supervisor.stop(run.forwardId);
    this.changed(true);
  }

  // ---- helpers ------------------------------------------------------------------------

  private require(forwardId: string): Entry {
    const entry = this.entries.get(forwardId);
    if (entry === undefined) throw notFound(forwardId);
    return entry;
  }

  private forget(entry: Entry): void {
    this.stopEntry(entry, { reason: 'Removed.' });
    if (this.entries.get(entry.def.id) === entry) this.entries.delete(entry.def.id);
    this.changed(true);
  }

  private checkOpen(): void {
    if (this.disposed) {
      throw new AppError({ code: 'cancelled', message: 'Porthole is shutting down.' });
    }
  }

  private savedOf(def: Definition): SavedForward {
    return {
      id: def.id,
      nodeId: def.nodeId,
      nodeName: def.nodeName,
      ...(def.name !== undefined && { name: def.name }),
      spec: def.spec,
      autoStart: def.autoStart,
    };
  }

  private toEntry(entry: Entry): ForwardEntry {
    const def = entry.def;
    const run = entry.run;
    const live: ForwardSnapshot | undefined =
      run === undefined
        ? undefined
        : run.snapshot !== undefined
          ? { ...run.snapshot, id: def.id, spec: def.spec }
          : {
              // Binding the local ports: the engine has not reported yet.
              id: def.id,
              spec: def.spec,
              state: { name: 'starting', reason: 'Opening the local ports.', since: run.startedAt },
              ports: [],
              metrics: {
                openConnections: 0,
                totalConnections: 0,
                failedConnections: 0,
                bytesIn: 0,
                bytesOut: 0,
              },
              connections: [],
            };
    const known = this.options.nodes.knowsNode(def.nodeId);
    return {
      id: def.id,
      nodeId: def.nodeId,
      nodeName: known ? this.options.nodes.nodeName(def.nodeId) : def.nodeName,
      ...(!known && { orphaned: true }),
      name: def.name ?? defaultForwardName(def.spec),
      spec: def.spec,
      saved: def.saved,
      autoStart: def.autoStart,
      ...(live !== undefined && { live }),
      ...(entry.lastError !== undefined && { lastError: entry.lastError }),
    };
  }

  /** State changes go out at once; traffic alone at most every `trafficIntervalMs`. */
  private changed(immediate: boolean): void {
    if (this.disposed) return;
    if (immediate) {
      if (this.trafficTimer !== undefined) clearTimeout(this.trafficTimer);
      this.trafficTimer = undefined;
      this.changeEmitter.fire(this.list());
      return;
    }
    if (this.trafficTimer !== undefined) return;
    this.trafficTimer = setTimeout(() => {
      this.trafficTimer = undefined;
      if (!this.disposed) this.changeEmitter.fire(this.list());
    }, this.trafficIntervalMs);
    this.trafficTimer.unref();
  }
}
