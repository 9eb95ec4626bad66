/**
 * Every port forward of every node, as the port-forwards view manages them: definitions
 * (saved in forwards.json or not) with stable ids, each running at most once on the
 * ForwardSupervisor of its node. Stopping keeps the definition; starting again runs it
 * again under the same id, on the same local ports where it can. Every run is a session in
 * the monitor. A node that disconnects stops its forwards (they say why); saved forwards
 * marked auto-start start whenever their node connects.
 *
 * The manager keeps the definitions and answers the view; ForwardRunner (runner.ts) runs
 * them, and ChangePace (change-pace.ts) decides when the list goes out.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../../../shared/errors';
import { DisposableStore, type Disposable } from '../../../../shared/lifecycle';
import type { ForwardEntry, ForwardOptions, ForwardSpec } from '../../../../shared/model';
import { Emitter, type Event } from '../../../../shared/event';
import type { SessionRegistry } from '../sessions';
import { logger } from '../../base/log';
import { ChangePace } from './change-pace';
import {
  autoStartNeedsSave,
  connectedClient,
  entryOfSaved,
  notFound,
  savedOf,
  toForwardEntry,
  type Definition,
  type Entry,
  type ForwardNodes,
} from './entry';
import type { ForwardTiming } from './timing';
import { ForwardRunner } from './runner';
import type { StopCause } from './session-mirror';
import { addressesBeyondLoopback } from './spec';
import { ForwardStore } from './store';

const forwardsLog = logger('forwards');

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

export class ForwardManager implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly runner: ForwardRunner;
  private readonly store: ForwardStore;
  private readonly changeEmitter = new Emitter<readonly ForwardEntry[]>();
  /** Every forward, whole, on every change; traffic-only changes at most every `trafficIntervalMs`. */
  readonly onDidChange: Event<readonly ForwardEntry[]> = this.changeEmitter.event;
  private readonly subscriptions = new DisposableStore();
  private readonly pace: ChangePace;
  private disposed = false;
  /** Resolves once forwards.json is read and saved forwards of connected nodes started. */
  readonly ready: Promise<void>;

  constructor(private readonly options: ForwardManagerOptions) {
    this.pace = new ChangePace(options.trafficIntervalMs ?? 250, () =>
      this.changeEmitter.fire(this.list()),
    );
    this.runner = new ForwardRunner({
      nodes: options.nodes,
      sessions: options.sessions,
      ...(options.timing !== undefined && { timing: options.timing }),
      entries: () => this.entries.values(),
      changed: (immediate) => this.changed(immediate),
    });
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
      throw autoStartNeedsSave();
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
      await this.runner.start(entry);
      if (entry.def.saved) await this.store.save(savedOf(entry.def));
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
    await this.runner.start(entry);
    return this.toEntry(entry);
  }

  /** Stops it, closing its ports and connections; the forward stays listed. */
  async stop(forwardId: string): Promise<ForwardEntry> {
    await this.ready;
    const entry = this.require(forwardId);
    this.runner.stop(entry, { reason: 'Stopped.' });
    return this.toEntry(entry);
  }

  async restart(forwardId: string): Promise<ForwardEntry> {
    await this.ready;
    this.checkOpen();
    const entry = this.require(forwardId);
    this.runner.stop(entry, { reason: 'Restarted.' });
    await this.runner.start(entry);
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
      throw autoStartNeedsSave();
    }
    const name =
      options.name === undefined ? def.name : options.name === '' ? undefined : options.name;
    const next: Definition = { ...def, name, saved, autoStart };
    // The file first: the list shows what is really saved.
    if (next.saved) await this.store.save(savedOf(next));
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
    this.runner.stop(entry, { reason: 'Removed.' });
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
    if (def.saved) await this.store.save(savedOf(next));
    this.runner.stop(entry, { reason: `Moved to ${nodeName}.` });
    def.nodeId = nodeId;
    def.nodeName = nodeName;
    entry.lastError = undefined;
    entry.autoStartedFor = undefined;
    this.changed(true);
    if (wasRunning) {
      // Where the new node is not connected, the entry says so (its last error).
      await this.runner
        .start(entry)
        .catch(
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
      if (entry.def.saved) await this.store.save(savedOf(entry.def));
      const cause: StopCause = {
        reason: `Stopped: ${name} was removed.`,
        error: {
          code: 'failed-precondition',
          message: `Stopped because ${name} was removed.`,
          hint: 'Move it to another node to use it again.',
        },
      };
      if (entry.run !== undefined) this.runner.stop(entry, cause);
      else entry.lastError = cause.error;
    }
    this.changed(true);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // First: what the shutdown changes is not sent.
    this.pace.dispose();
    this.runner.dispose();
    this.subscriptions.dispose();
    this.changeEmitter.dispose();
  }

  // ---- loading and nodes ------------------------------------------------------------

  private async load(): Promise<void> {
    const { warnings } = await this.store.load();
    const warn = this.options.warn ?? ((message: string) => process.emitWarning(message));
    for (const warning of warnings) warn(warning);
    if (this.disposed) return;
    for (const saved of this.store.list()) this.entries.set(saved.id, entryOfSaved(saved));
    this.subscriptions.add(this.options.nodes.onDidChange(() => this.reconcileNodes()));
    this.reconcileNodes();
    this.changed(true);
  }

  private clientOf(nodeId: string) {
    return connectedClient(this.options.nodes, nodeId);
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
    this.runner.closeStaleNodes();
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
      this.runner
        .start(entry)
        .catch(
          forwardsLog.failure(
            `Forward ${this.toEntry(entry).name} did not start by itself`,
            'warn',
          ),
        );
    }
  }

  // ---- helpers ------------------------------------------------------------------------

  private require(forwardId: string): Entry {
    const entry = this.entries.get(forwardId);
    if (entry === undefined) throw notFound(forwardId);
    return entry;
  }

  private forget(entry: Entry): void {
    this.runner.stop(entry, { reason: 'Removed.' });
    if (this.entries.get(entry.def.id) === entry) this.entries.delete(entry.def.id);
    this.changed(true);
  }

  private checkOpen(): void {
    if (this.disposed) {
      throw new AppError({ code: 'cancelled', message: 'Porthole is shutting down.' });
    }
  }

  private toEntry(entry: Entry): ForwardEntry {
    return toForwardEntry(entry, this.options.nodes);
  }

  private changed(immediate: boolean): void {
    this.pace.changed(immediate);
  }
}
