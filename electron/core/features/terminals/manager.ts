/**
 * Every terminal of the core: opens exec and attach sessions on a node's containers,
 * routes the pane's input, resizes and acknowledgements to them, and registers each in
 * the session monitor. A terminal lives until it is closed, its process ends or its
 * transport drops; an ending nobody has seen yet is kept (for a while, and only for a
 * few terminals) for the next subscriber. Disposed with the core, closing them all.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventSink } from '../../../../shared/contract';
import { AppError, isAppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type {
  LeftoverProcess,
  LeftoverRef,
  TerminalEvent,
  TerminalInfo,
  TerminalOpenRequest,
} from '../../../../shared/model';
import type { SessionRegistry } from '../sessions';
import type { NodeManager } from '../nodes';
import { openRemoteCommand } from '../../base/streaming';
import { runningContainer } from './container-facts';
import type { ContainerFate } from './exit-reason';
import { endLeftover, findLeftover } from './leftover';
import type { FlowLimits } from './output-flow';
import { openTerminal } from './open-terminal';
import { probeShell } from './shell-probe';
import { Terminal } from './terminal';

export interface TerminalManagerOptions {
  readonly nodes: Pick<NodeManager, 'client' | 'dialer' | 'nodeName'>;
  readonly sessions: SessionRegistry;
  readonly limits?: Partial<FlowLimits>;
  /** How long an ending nobody received is kept for a subscriber. Default 5 minutes. */
  readonly unseenExitMs?: number;
  /** How many such endings are kept at most (oldest dropped first). Default 32. */
  readonly maxUnseenExits?: number;
  /** Tests substitute the streaming engine; the real one by default. */
  readonly openRemoteCommand?: typeof openRemoteCommand;
}

/** Waits before asking again whether a container that still reads `running` stopped. */
const fateRetryDelaysMs = [0, 150, 300, 600];

/** Ids of terminals already forgotten, so late acks and closes from a pane are harmless. */
const rememberedEndedIds = 256;

export class TerminalManager implements Disposable {
  private readonly terminals = new Map<string, Terminal>();
  /** Ended terminals whose exit no subscriber received yet, oldest first. */
  private readonly unseen = new Map<string, NodeJS.Timeout>();
  private readonly endedIds = new Set<string>();
  private readonly opening = new Set<AbortController>();
  private readonly unseenExitMs: number;
  private readonly maxUnseenExits: number;
  private readonly open_: typeof openRemoteCommand;
  private disposed = false;

  constructor(private readonly options: TerminalManagerOptions) {
    this.unseenExitMs = options.unseenExitMs ?? 5 * 60_000;
    this.maxUnseenExits = options.maxUnseenExits ?? 32;
    this.open_ = options.openRemoteCommand ?? openRemoteCommand;
  }

  /** The container's shell (`bash`, `ash` or `sh`); `not-found` when it has none. */
  async probeShell(nodeId: string, containerId: string, signal?: AbortSignal): Promise<string[]> {
    const client = this.options.nodes.client(nodeId);
    await runningContainer(client, containerId, this.options.nodes.nodeName(nodeId), signal);
    return probeShell(client, containerId, signal);
  }

  /** Opens the stream; output waits for the first subscriber. */
  async open(request: TerminalOpenRequest, signal?: AbortSignal): Promise<TerminalInfo> {
    this.throwIfDisposed();
    const { nodeId, containerId } = request;
    const { nodes, sessions } = this.options;
    const deps = {
      client: nodes.client(nodeId),
      dialer: nodes.dialer(nodeId),
      nodeName: nodes.nodeName(nodeId),
      sessions,
      openRemoteCommand: this.open_,
    };
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    this.opening.add(controller);
    // Until the terminal exists, the monitor's kill cancels the opening.
    let killFromMonitor = (): void => controller.abort();
    try {
      const opened = await openTerminal(deps, request, controller.signal, () => killFromMonitor());
      const { remote, handle } = opened;
      // Cancelled by the caller (its page went away) or shutting down: nobody would ever
      // learn this terminal's id, so it must not outlive the call.
      if (this.disposed || controller.signal.aborted) {
        const reason = this.disposed
          ? 'Porthole closed the terminal while shutting down.'
          : 'Opening the terminal was cancelled.';
        remote.dispose();
        handle.end({ state: 'ended', reason });
        throw new AppError({ code: 'cancelled', message: reason });
      }
      const info: TerminalInfo = { terminalId: randomUUID(), ...opened.info };
      const terminal = new Terminal({
        info,
        remote,
        handle,
        ...(this.options.limits !== undefined && { limits: this.options.limits }),
        containerFate: (patient) => this.containerFate(nodeId, containerId, patient),
        onEnded: (ended) => this.onEnded(ended),
        onExitDelivered: (ended) => this.forget(ended.id),
      });
      killFromMonitor = () => terminal.close('monitor');
      this.terminals.set(info.terminalId, terminal);
      return info;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.opening.delete(controller);
    }
  }

  /** An ended exec session's process, if it still runs (see leftover.ts). */
  findLeftover(ref: LeftoverRef, signal?: AbortSignal): Promise<LeftoverProcess | undefined> {
    return findLeftover(this.options.nodes.client(ref.nodeId), ref, signal);
  }

  endLeftover(
    ref: LeftoverRef,
    process: LeftoverProcess,
    signal?: AbortSignal,
  ): Promise<'terminated' | 'killed' | 'gone'> {
    return endLeftover(this.options.nodes.client(ref.nodeId), ref, process, signal);
  }

  subscribe(terminalId: string, sink: EventSink<TerminalEvent>): Disposable {
    return this.get(terminalId).subscribe(sink);
  }

  write(terminalId: string, data: Buffer): void {
    if (!this.endedIds.has(terminalId)) this.get(terminalId).write(data);
  }

  resize(terminalId: string, cols: number, rows: number): void {
    if (!this.endedIds.has(terminalId)) this.get(terminalId).resize(cols, rows);
  }

  /** A notification for a terminal the page named was refused: tell its pane. */
  notice(terminalId: string, error: AppError): void {
    this.terminals.get(terminalId)?.notice(error);
  }

  ack(terminalId: string, bytes: number): void {
    if (!this.endedIds.has(terminalId)) this.get(terminalId).ack(bytes);
  }

  /** Closes it and forgets it; closing an ended terminal again is fine. */
  close(terminalId: string): void {
    if (this.endedIds.has(terminalId)) return;
    const terminal = this.get(terminalId);
    terminal.close('user');
    this.forget(terminalId);
  }

  /** The terminal with that id, for tests and diagnostics. */
  find(terminalId: string): Terminal | undefined {
    return this.terminals.get(terminalId);
  }

  get size(): number {
    return this.terminals.size;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const controller of this.opening) controller.abort();
    for (const id of [...this.terminals.keys()]) this.forget(id);
  }

  private get(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (terminal === undefined) {
      throw new AppError({
        code: 'not-found',
        message: 'There is no such terminal.',
        hint: 'It may have ended before this pane connected; open a new one.',
      });
    }
    return terminal;
  }

  private onEnded(terminal: Terminal): void {
    const id = terminal.id;
    if (this.terminals.get(id) !== terminal || this.unseen.has(id)) return;
    if (terminal.isExitDelivered) {
      this.forget(id);
      return;
    }
    const timer = setTimeout(() => this.forget(id), this.unseenExitMs);
    timer.unref();
    this.unseen.set(id, timer);
    for (const oldest of this.unseen.keys()) {
      if (this.unseen.size <= this.maxUnseenExits) break;
      this.forget(oldest);
    }
  }

  private forget(terminalId: string): void {
    const terminal = this.terminals.get(terminalId);
    if (terminal === undefined) return;
    this.terminals.delete(terminalId);
    clearTimeout(this.unseen.get(terminalId));
    this.unseen.delete(terminalId);
    this.endedIds.add(terminalId);
    for (const old of this.endedIds) {
      if (this.endedIds.size <= rememberedEndedIds) break;
      this.endedIds.delete(old);
    }
    terminal.dispose();
  }

  /**
   * The container's state after a stream ended. The runtime ends a session's process
   * before it records the container's own exit, so a container being stopped reads
   * `running` for a moment: ask again a few times before believing it.
   */
  private async containerFate(
    nodeId: string,
    containerId: string,
    patient: boolean,
  ): Promise<ContainerFate | undefined> {
    let fate: ContainerFate | undefined;
    for (const delayMs of patient ? fateRetryDelaysMs : [0]) {
      if (delayMs > 0) await sleep(delayMs, undefined, { ref: false });
      if (this.disposed) return fate;
      fate = await this.queryFate(nodeId, containerId);
      if (fate?.state !== 'running') return fate;
    }
    return fate;
  }

  private async queryFate(nodeId: string, containerId: string): Promise<ContainerFate | undefined> {
    let client;
    try {
      client = this.options.nodes.client(nodeId);
    } catch {
      // The node is no longer connected: nothing to learn about the container.
      return undefined;
    }
    try {
      const detail = await client.containerStatus(containerId, { timeoutMs: 3000 });
      return {
        state: detail.state,
        ...(detail.exitCode !== undefined && { exitCode: detail.exitCode }),
      };
    } catch (error) {
      return isAppError(error) && error.code === 'not-found' ? { state: 'gone' } : undefined;
    }
  }

  private throwIfDisposed(): void {
    if (this.disposed) throw shuttingDown();
  }
}

function shuttingDown(): AppError {
  return new AppError({ code: 'cancelled', message: 'Porthole is shutting down.' });
}
