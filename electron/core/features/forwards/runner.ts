/**
 * Runs forward entries on the ForwardSupervisor of their node, one supervisor per node
 * connection: starts a run (again on the last run's ports where it can), follows its
 * snapshots, mirrors it as a session in the monitor, and ends it, keeping why. A node
 * whose connection closed or was replaced takes its runs with it, and they say so.
 */
import { AppError, toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type { ForwardSnapshot, ForwardSpec } from '../../../../shared/model';
import type { NodeClient } from '../nodes';
import type { SessionRegistry } from '../sessions';
import { changedBeyondTraffic } from './change-pace';
import { describeBinding, sessionTargetOf } from './describe';
import { connectedClient, type Entry, type ForwardNodes, type Run } from './entry';
import type { ForwardTiming } from './timing';
import { ForwardSessionMirror, type StopCause } from './session-mirror';
import { ForwardSupervisor } from './supervisor';

export interface ForwardRunnerOptions {
  readonly nodes: ForwardNodes;
  readonly sessions: SessionRegistry;
  readonly timing?: Partial<ForwardTiming>;
  /** Every entry there is: a closed node's runs are found among them. */
  readonly entries: () => Iterable<Entry>;
  /** An entry changed; `immediate` unless only its traffic did. */
  readonly changed: (immediate: boolean) => void;
}

interface NodeForwards {
  readonly client: NodeClient;
  readonly supervisor: ForwardSupervisor;
  readonly subscription: Disposable;
}

const finalStates: ReadonlySet<string> = new Set(['failed', 'stopped']);

export class ForwardRunner implements Disposable {
  private readonly nodeForwards = new Map<string, NodeForwards>();
  private readonly runsBySpec = new WeakMap<ForwardSpec, { entry: Entry; run: Run }>();
  private disposed = false;

  constructor(private readonly options: ForwardRunnerOptions) {}

  /** Runs the entry (resolves once active); a running one is left as it is. */
  async start(entry: Entry): Promise<void> {
    if (entry.run !== undefined) return entry.run.started;
    let supervisor: ForwardSupervisor;
    try {
      supervisor = this.supervisorFor(entry.def.nodeId);
    } catch (error) {
      entry.lastError = toAppErrorData(error);
      this.options.changed(true);
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

  /** Stops the entry's run, if any, synchronously: its final snapshot ends it. */
  stop(entry: Entry, cause: StopCause): void {
    const run = entry.run;
    if (run === undefined) return;
    run.cause ??= cause;
    if (run.forwardId !== undefined) run.supervisor.stop(run.forwardId);
    // Not known to the supervisor (already gone): end it here.
    if (entry.run === run) this.finishRun(entry, run, undefined);
  }

  /** After a node change: the runs of a node whose connection closed (or was replaced) stop. */
  closeStaleNodes(): void {
    for (const [nodeId, node] of [...this.nodeForwards]) {
      if (connectedClient(this.options.nodes, nodeId) !== node.client) this.closeNode(nodeId);
    }
  }

  /** Porthole is shutting down: every run stops, every supervisor goes. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of this.options.entries()) {
      this.stop(entry, { reason: 'Porthole is shutting down.' });
    }
    for (const nodeId of [...this.nodeForwards.keys()]) this.closeNode(nodeId);
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
    for (const entry of this.options.entries()) {
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
    for (const entry of this.options.entries()) {
      if (entry.run?.supervisor === node.supervisor) this.finishRun(entry, entry.run, undefined);
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
      kill: () => this.stop(entry, { reason: 'Killed from the session monitor.' }),
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
    this.options.changed(true);
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
    this.options.changed(changedBeyondTraffic(previous, snapshot));
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
    this.options.changed(true);
  }
}
