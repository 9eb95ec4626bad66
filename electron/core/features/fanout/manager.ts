/**
 * The runs on many: each found, started and kept (the last `maxRuns`), and told when one
 * of its nodes drops. Bounded: a run has at most `maxTargets` containers, runs at most
 * `maxConcurrency` at once, keeps `outputCap` bytes of each stream per row.
 */
import { randomUUID } from 'node:crypto';
import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type {
  FanoutRequest,
  FanoutRow,
  FanoutRunInfo,
  FanoutUpdate,
} from '../../../../shared/model';
import { fanoutLimits } from '../../../../shared/model';
import { openRemoteCommand } from '../../base/streaming';
import type { NodeManager } from '../nodes';
import type { SessionRegistry } from '../sessions';
import { chooseMethod } from './method';
import { FanoutRun, runGone, type FanoutExec } from './run';
import { findTargets } from './targets';

export interface FanoutManagerOptions {
  readonly nodes: Pick<NodeManager, 'statuses' | 'client' | 'nodeName' | 'dialer' | 'onDidChange'>;
  readonly sessions?: SessionRegistry;
  /** Default the real one; tests run the streaming path against fakes. */
  readonly openRemoteCommand?: typeof openRemoteCommand;
}

/** A request with its defaults filled in, as the run keeps it. */
export type SettledRequest = FanoutRunInfo['request'];

export class FanoutManager implements Disposable {
  private readonly runs = new Map<string, FanoutRun>();
  private readonly nodeWatch: Disposable;
  private readonly exec: FanoutExec;

  constructor(private readonly options: FanoutManagerOptions) {
    const { nodes } = options;
    this.exec = {
      client: (nodeId) => nodes.client(nodeId),
      dialer: (nodeId) => nodes.dialer(nodeId),
      status: (nodeId) => nodes.statuses().find((status) => status.nodeId === nodeId),
      openRemoteCommand: options.openRemoteCommand ?? openRemoteCommand,
      ...(options.sessions !== undefined && { sessions: options.sessions }),
    };
    this.nodeWatch = nodes.onDidChange((delta) => {
      for (const status of delta.upserted) {
        if (status.state === 'connected') continue;
        const reason = `${status.name} dropped (${status.state})${status.error !== undefined ? `: ${status.error.message}` : '.'}`;
        for (const run of this.runs.values()) run.nodeDropped(status.nodeId, reason);
      }
      for (const nodeId of delta.removed) {
        for (const run of this.runs.values()) run.nodeDropped(nodeId, 'The node was removed.');
      }
    });
  }

  preview(targets: FanoutRequest['targets'], signal: AbortSignal): Promise<FanoutRow[]> {
    return findTargets(this.options.nodes, targets, signal).then((rows) => {
      checkTargetCount(rows);
      return rows;
    });
  }

  async start(request: SettledRequest, signal: AbortSignal): Promise<FanoutRunInfo> {
    const rows = await findTargets(this.options.nodes, request.targets, signal);
    checkTargetCount(rows);
    if (!rows.some((row) => row.state === 'queued')) {
      throw new AppError({
        code: 'not-found',
        message: 'No running container matches.',
        hint:
          rows.length > 0
            ? rows.map((row) => row.reason).join(' ')
            : 'Check the selector or pattern, and that the nodes are connected.',
      });
    }
    this.makeRoom();
    const info: FanoutRunInfo = {
      runId: randomUUID(),
      request,
      method: chooseMethod(request.mode, request.timeoutSeconds),
      state: 'running',
      startedAt: Date.now(),
    };
    const run = new FanoutRun(info, rows, this.exec);
    this.runs.set(info.runId, run);
    run.start();
    return info;
  }

  cancel(runId: string): void {
    this.require(runId).cancel();
  }

  close(runId: string): void {
    this.runs.get(runId)?.dispose();
    this.runs.delete(runId);
  }

  /** The run's rows, one JSON object a line, for a file or another tool. */
  exportJsonLines(runId: string): string {
    const run = this.require(runId);
    return run
      .rowsInOrder()
      .map((row) =>
        JSON.stringify({
          runId,
          node: row.nodeName,
          nodeId: row.nodeId,
          namespace: row.podNamespace,
          pod: row.podName,
          container: row.containerName,
          containerId: row.containerId,
          state: row.state,
          exitCode: row.exitCode ?? null,
          startedAt: row.startedAt !== undefined ? new Date(row.startedAt).toISOString() : null,
          durationMs: row.durationMs ?? null,
          stdout: row.stdout.text,
          stdoutBytes: row.stdout.bytes,
          stdoutTruncated: row.stdout.truncated,
          stderr: row.stderr.text,
          stderrBytes: row.stderr.bytes,
          stderrTruncated: row.stderr.truncated,
          outputDigest: row.outputDigest ?? null,
          reason: row.reason ?? null,
        }),
      )
      .map((line) => `${line}\n`)
      .join('');
  }

  subscribe(runId: string, sink: EventSink<FanoutUpdate>): Disposable {
    return this.require(runId).subscribe(sink);
  }

  /** For tests and the bench: resolves when every row of the run has ended. */
  settled(runId: string): Promise<void> {
    return this.require(runId).done;
  }

  dispose(): void {
    this.nodeWatch.dispose();
    for (const run of this.runs.values()) run.dispose();
    this.runs.clear();
  }

  private require(runId: string): FanoutRun {
    const run = this.runs.get(runId);
    if (run === undefined) throw runGone();
    return run;
  }

  /** Keeps at most `maxRuns`: the oldest ended one goes; if all still run, the new one waits. */
  private makeRoom(): void {
    if (this.runs.size < fanoutLimits.maxRuns) return;
    const ended = [...this.runs.values()].find((run) => run.state !== 'running');
    if (ended === undefined) {
      throw new AppError({
        code: 'resource-exhausted',
        message: `${this.runs.size} runs are still going, as many as Porthole keeps at once.`,
        hint: 'Cancel or close one, then start again.',
      });
    }
    this.close(ended.runId);
  }
}

function checkTargetCount(rows: readonly FanoutRow[]): void {
  if (rows.length > fanoutLimits.maxTargets) {
    throw new AppError({
      code: 'resource-exhausted',
      message: `${rows.length} containers match, more than the ${fanoutLimits.maxTargets} one run takes.`,
      hint: 'Narrow the selector, the pattern or the nodes.',
    });
  }
}
