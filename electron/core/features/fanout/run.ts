/**
 * One run on many: its rows, a pool of at most `concurrency` commands at a time, cancel,
 * and what happened to each container in the grid's words. Changes go out in batches (one
 * per turn of the event loop), so fifty rows ending together are one message.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, isAppError, toAppErrorData } from '../../../../shared/errors';
import type { EventSink } from '../../../../shared/contract';
import { Emitter } from '../../../../shared/event';
import type { Disposable } from '../../../../shared/lifecycle';
import type { FanoutRow, FanoutRunInfo, FanoutUpdate, NodeStatus } from '../../../../shared/model';
import { fanoutLimits } from '../../../../shared/model';
import type { Dialer, openRemoteCommand } from '../../base/streaming';
import type { NodeClient } from '../nodes';
import type { SessionHandle, SessionRegistry } from '../sessions';
import { CappedOutput, rowDigest } from './output';

/** What running a command on a node's container needs. */
export interface FanoutExec {
  client(nodeId: string): Pick<NodeClient, 'execSync' | 'exec' | 'attach' | 'containerStatus'>;
  dialer(nodeId: string): Dialer;
  status(nodeId: string): NodeStatus | undefined;
  readonly openRemoteCommand: typeof openRemoteCommand;
  readonly sessions?: SessionRegistry;
}

/** How often, and how far apart, a signalled row's container is looked at again. */
const vanishLooks = 10;
const vanishLookMs = 300;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Why a row's controller was aborted, when it was not the user's cancel. */
class NodeDropped {
  constructor(readonly reason: string) {}
}

export class FanoutRun implements Disposable {
  private info: FanoutRunInfo;
  private readonly rows = new Map<string, FanoutRow>();
  private readonly order: string[];
  private readonly changed = new Emitter<FanoutUpdate>();
  private readonly dirty = new Set<string>();
  private flushScheduled: NodeJS.Immediate | undefined;
  private readonly controllers = new Map<string, AbortController>();
  private cancelled = false;
  private next = 0;
  private active = 0;
  /** Resolves when every row has ended. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    info: FanoutRunInfo,
    rows: readonly FanoutRow[],
    private readonly exec: FanoutExec,
  ) {
    this.info = info;
    for (const row of rows) this.rows.set(row.key, row);
    this.order = rows.map((row) => row.key);
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  get runId(): string {
    return this.info.runId;
  }

  get state(): FanoutRunInfo['state'] {
    return this.info.state;
  }

  snapshot(): FanoutUpdate {
    return { reset: true, run: this.info, rows: this.order.map((key) => this.row(key)) };
  }

  rowsInOrder(): readonly FanoutRow[] {
    return this.order.map((key) => this.row(key));
  }

  subscribe(sink: EventSink<FanoutUpdate>): Disposable {
    sink.next(this.snapshot());
    return this.changed.event((update) => sink.next(update));
  }

  start(): void {
    const workers = Math.min(this.info.request.concurrency, this.order.length);
    for (let index = 0; index < workers; index += 1) this.pump();
    this.settleIfDone();
  }

  /** Queued rows are cancelled; running ones are ended (their call or streams aborted). */
  cancel(): void {
    if (this.cancelled || this.info.state !== 'running') return;
    this.cancelled = true;
    for (const key of this.order) {
      const row = this.row(key);
      if (row.state === 'queued')
        this.update(key, { state: 'cancelled', reason: 'Cancelled before it ran.' });
    }
    for (const controller of this.controllers.values())
      controller.abort(new AppError({ code: 'cancelled', message: 'Cancelled.' }));
    this.settleIfDone();
  }

  /** A node of the run dropped: its rows that have not ended vanish, with why. */
  nodeDropped(nodeId: string, reason: string): void {
    for (const key of this.order) {
      const row = this.row(key);
      if (row.nodeId !== nodeId) continue;
      if (row.state === 'queued') this.update(key, { state: 'vanished', reason });
      else if (row.state === 'running') this.controllers.get(key)?.abort(new NodeDropped(reason));
    }
    this.settleIfDone();
  }

  dispose(): void {
    this.cancel();
    clearImmediate(this.flushScheduled);
    this.changed.dispose();
  }

  private row(key: string): FanoutRow {
    const row = this.rows.get(key);
    if (row === undefined) throw new Error(`No row ${key}`);
    return row;
  }

  private update(key: string, change: Partial<Mutable<FanoutRow>>): void {
    this.rows.set(key, { ...this.row(key), ...change });
    this.dirty.add(key);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.flushScheduled ??= setImmediate(() => {
      this.flushScheduled = undefined;
      const rows = [...this.dirty].map((key) => this.row(key));
      this.dirty.clear();
      this.changed.fire({ reset: false, run: this.info, rows });
    });
  }

  private pump(): void {
    while (this.next < this.order.length && !this.cancelled) {
      const key = this.order[this.next];
      this.next += 1;
      if (key === undefined || this.row(key).state !== 'queued') continue;
      this.active += 1;
      void this.runRow(key).finally(() => {
        this.active -= 1;
        this.pump();
        this.settleIfDone();
      });
      return;
    }
  }

  private settleIfDone(): void {
    if (this.info.state !== 'running' || this.active > 0) return;
    const open = this.order.some((key) => {
      const state = this.row(key).state;
      return state === 'queued' || state === 'running';
    });
    if (open) return;
    this.info = { ...this.info, state: this.cancelled ? 'cancelled' : 'done', endedAt: Date.now() };
    this.scheduleFlush();
    this.resolveDone();
  }

  private async runRow(key: string): Promise<void> {
    const row = this.row(key);
    const controller = new AbortController();
    this.controllers.set(key, controller);
    const startedAt = Date.now();
    this.update(key, { state: 'running', startedAt });
    const stdout = new CappedOutput(fanoutLimits.outputCap);
    const stderr = new CappedOutput(fanoutLimits.outputCap);
    let exitCode: number | undefined;
    let failure: unknown;
    try {
      exitCode =
        this.info.method.method === 'exec-sync'
          ? await this.execSync(row, stdout, stderr, controller.signal)
          : await this.execStream(key, row, stdout, stderr, controller.signal);
    } catch (error) {
      failure = error;
    } finally {
      this.controllers.delete(key);
    }
    const durationMs = Date.now() - startedAt;
    const outputs = { stdout: stdout.snapshot(), stderr: stderr.snapshot() };
    const aborted: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
    if (aborted instanceof NodeDropped) {
      this.update(key, { state: 'vanished', reason: aborted.reason, durationMs, ...outputs });
      return;
    }
    if (aborted !== undefined) {
      this.update(key, {
        state: 'cancelled',
        reason:
          this.info.method.method === 'stream'
            ? 'Cancelled while it ran: its streams were closed.'
            : 'Cancelled while it ran: the ExecSync call was cancelled.',
        durationMs,
        ...outputs,
      });
      return;
    }
    // A command that failed or could not run: was it the container that went away? (A
    // removed container's exec ends with 137 on one runtime, an error or a bare end of
    // stream on another.)
    if (failure !== undefined || exitCode !== 0) {
      const vanished = await this.vanishedReason(row, exitCode !== undefined && exitCode >= 128);
      if (vanished !== undefined) {
        this.update(key, {
          state: 'vanished',
          reason: vanished,
          durationMs,
          ...outputs,
          ...(exitCode !== undefined && { exitCode }),
          ...(failure !== undefined && { error: toAppErrorData(failure) }),
        });
        return;
      }
    }
    if (failure !== undefined) {
      const error = toAppErrorData(failure);
      this.update(key, {
        state: 'failed',
        reason:
          error.code === 'deadline-exceeded'
            ? `It ran past its ${this.info.request.timeoutSeconds} s timeout and was ended.`
            : error.message,
        error,
        durationMs,
        ...outputs,
      });
      return;
    }
    const code = exitCode ?? 0;
    this.update(key, {
      state: 'exited',
      exitCode: code,
      durationMs,
      ...outputs,
      outputDigest: rowDigest(code, stdout.digest(), stderr.digest()),
    });
  }

  private async execSync(
    row: FanoutRow,
    stdout: CappedOutput,
    stderr: CappedOutput,
    signal: AbortSignal,
  ): Promise<number> {
    const result = await this.exec
      .client(row.nodeId)
      .execSync(row.containerId, this.info.request.command, this.info.request.timeoutSeconds, {
        signal,
      });
    stdout.push(result.stdout);
    stderr.push(result.stderr);
    return result.exitCode;
  }

  private async execStream(
    key: string,
    row: FanoutRow,
    stdout: CappedOutput,
    stderr: CappedOutput,
    signal: AbortSignal,
  ): Promise<number | undefined> {
    const { command, timeoutSeconds } = this.info.request;
    const handle: SessionHandle | undefined = this.exec.sessions?.register({
      kind: 'exec',
      nodeId: row.nodeId,
      nodeName: row.nodeName,
      target: {
        description: `${row.podNamespace}/${row.podName} › ${row.containerName}`,
        containerId: row.containerId,
        containerName: row.containerName,
        podName: row.podName,
        namespace: row.podNamespace,
      },
      detail: `run on many: ${command.join(' ')}`,
      // The monitor's kill ends this row alone.
      kill: () =>
        this.controllers
          .get(key)
          ?.abort(new AppError({ code: 'cancelled', message: 'Ended from the session monitor.' })),
    });
    let timedOut = false;
    let session: Awaited<ReturnType<typeof openRemoteCommand>> | undefined;
    const timer =
      timeoutSeconds > 0
        ? setTimeout(() => {
            timedOut = true;
            session?.dispose();
          }, timeoutSeconds * 1000)
        : undefined;
    try {
      session = await this.exec.openRemoteCommand({
        cri: this.exec.client(row.nodeId),
        kind: 'exec',
        containerId: row.containerId,
        cmd: command,
        tty: false,
        stdin: false,
        stdout: true,
        stderr: true,
        dialer: this.exec.dialer(row.nodeId),
        signal,
      });
      if (timedOut) session.dispose();
      handle?.update({
        state: 'active',
        transport: session.negotiated.transport,
        protocol: session.negotiated.protocol,
      });
      this.update(key, { transport: session.negotiated.transport });
      const live = (output: CappedOutput, name: 'stdout' | 'stderr') => (chunk: Buffer) => {
        output.push(chunk);
        handle?.countIn(chunk.byteLength);
        this.update(key, { [name]: output.snapshot() });
      };
      session.stdout?.on('data', live(stdout, 'stdout'));
      session.stderr?.on('data', live(stderr, 'stderr'));
      const result = await session.result;
      handle?.end({
        state: 'ended',
        reason: `Exited with ${result.exitCode ?? 'no'} code.`,
        ...(result.exitCode !== undefined && { exitCode: result.exitCode }),
      });
      if (result.exitCode === undefined && result.reason !== 'Success') {
        throw new AppError({ code: 'internal', message: result.message || result.reason });
      }
      return result.exitCode;
    } catch (error) {
      const data = timedOut
        ? new AppError({
            code: 'deadline-exceeded',
            message: `It ran past its ${timeoutSeconds} s timeout; its streams were closed.`,
            hint: 'The process may still run in the container.',
          })
        : error;
      handle?.end({
        state: 'failed',
        reason: toAppErrorData(data).message,
        error: toAppErrorData(data),
      });
      throw data;
    } finally {
      clearTimeout(timer);
      session?.dispose();
    }
  }

  /**
   * Why a row's command failed when its container or node went away; else undefined. A
   * command killed by a signal (`signalled`) is looked at again for a while: stopping or
   * removing a container kills its execs first, and the container itself a moment later.
   */
  private async vanishedReason(row: FanoutRow, signalled: boolean): Promise<string | undefined> {
    const status = this.exec.status(row.nodeId);
    if (status?.state !== 'connected') {
      return `${row.nodeName} dropped while the command ran${status?.error !== undefined ? `: ${status.error.message}` : '.'}`;
    }
    try {
      const client = this.exec.client(row.nodeId);
      let detail = await client.containerStatus(row.containerId);
      for (let look = 0; signalled && detail.state === 'running' && look < vanishLooks; look += 1) {
        await sleep(vanishLookMs);
        detail = await client.containerStatus(row.containerId);
      }
      if (detail.state === 'running') return undefined;
      const how = [
        detail.exitCode !== undefined ? `exit code ${detail.exitCode}` : '',
        detail.reason,
      ]
        .filter((part) => part !== '')
        .join(', ');
      return `The container stopped while the command ran (${detail.state}${how !== '' ? `, ${how}` : ''}).`;
    } catch (error) {
      if (isAppError(error) && error.code === 'not-found') {
        return 'The container was removed while the command ran.';
      }
      return undefined;
    }
  }
}

/** Ends a sink's subscription to a run that is gone. */
export function runGone(): AppError {
  return new AppError({
    code: 'not-found',
    message: 'That run is not kept any more.',
    hint: 'Porthole keeps the last few runs; start it again.',
  });
}
