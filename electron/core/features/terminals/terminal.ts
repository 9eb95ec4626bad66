/**
 * One open terminal: an exec or attach session whose output goes through an OutputFlow
 * to at most one subscriber, whose input, resizes and acknowledgements come from the
 * pane, and which ends exactly once: the exit event follows all output received, and the
 * session monitor learns the same ending.
 */
import type { Readable } from 'node:stream';
import { finished } from 'node:stream';
import type { EventSink } from '../../../../shared/contract';
import { AppError, toAppErrorData } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { TerminalEvent, TerminalInfo } from '../../../../shared/model';
import type { SessionHandle } from '../sessions';
import type { RemoteCommand } from '../../base/streaming';
import {
  closedEnding,
  describeEnding,
  containerCheck,
  type ClosedBy,
  type CommandOutcome,
  type ContainerFate,
  type TerminalEnding,
} from './exit-reason';
import { OutputFlow, type FlowLimits, type OutputStreamName } from './output-flow';
import { logger } from '../../base/log';

const terminalLog = logger('terminals');

export interface TerminalOptions {
  readonly info: TerminalInfo;
  readonly remote: RemoteCommand;
  readonly handle: SessionHandle;
  readonly limits?: Partial<FlowLimits>;
  /**
   * The container's state once the stream ended, to explain the end; undefined if unknown.
   * `patient`: a container being stopped may still read `running` for a moment.
   */
  readonly containerFate: (patient: boolean) => Promise<ContainerFate | undefined>;
  /** The exit is queued (and the session ended in the monitor). */
  readonly onEnded: (terminal: Terminal) => void;
  /** A subscriber received the exit event: nothing is left to deliver. */
  readonly onExitDelivered: (terminal: Terminal) => void;
}

/** After the stream's result, output streams still open are given this long to end. */
const outputsSettleMs = 2000;
/** Input waiting for the container beyond this is refused rather than buffered. */
const maxPendingInputBytes = 4 * 1024 * 1024;

function outputDone(readable: Readable): Promise<void> {
  return new Promise((resolve) => finished(readable, () => resolve()));
}

export class Terminal implements Disposable {
  readonly id: string;
  private readonly flow: OutputFlow;
  private readonly outputs: readonly Readable[];
  private sink: EventSink<TerminalEvent> | undefined;
  /** The stream's result is in: read the rest regardless of acknowledgements. */
  private draining = false;
  private ending = false;
  private ended = false;
  private disposed = false;

  constructor(private readonly options: TerminalOptions) {
    const { info, remote, handle } = options;
    this.id = info.terminalId;
    this.flow = new OutputFlow({
      ...(options.limits !== undefined && { limits: options.limits }),
      pause: () => {
        if (!this.draining) for (const output of this.outputs) output.pause();
      },
      resume: () => {
        for (const output of this.outputs) output.resume();
      },
      onExitDelivered: () => options.onExitDelivered(this),
    });
    const named: [OutputStreamName, Readable | undefined][] = [
      ['stdout', remote.stdout],
      ['stderr', remote.stderr],
    ];
    const outputs: Readable[] = [];
    for (const [name, readable] of named) {
      if (readable === undefined) continue;
      outputs.push(readable);
      readable.on('data', (chunk: Buffer) => {
        handle.countIn(chunk.length);
        this.flow.push(name, chunk);
      });
    }
    this.outputs = outputs;
    void this.watchEnd();
  }

  get info(): TerminalInfo {
    return this.options.info;
  }

  get hasEnded(): boolean {
    return this.ended;
  }

  get isExitDelivered(): boolean {
    return this.flow.isExitDelivered;
  }

  /** For tests and the monitor: bytes read and not yet acknowledged. */
  get unacknowledgedBytes(): number {
    return this.flow.inFlight;
  }

  get isReadingPaused(): boolean {
    return this.flow.isPaused;
  }

  /**
   * Sends the output (what was queued first) and the exit to `sink`. A newer subscriber
   * takes over: the previous one is told, and gets nothing more.
   */
  subscribe(sink: EventSink<TerminalEvent>): Disposable {
    const previous = this.sink;
    this.sink = sink;
    const subscription = this.flow.subscribe((event) => sink.next(event));
    previous?.error(
      new AppError({
        code: 'cancelled',
        message: 'This terminal is now shown by another subscriber.',
      }),
    );
    return toDisposable(() => {
      subscription.dispose();
      if (this.sink === sink) this.sink = undefined;
    });
  }

  /**
   * Input for the process, in the order it arrives. What can't be delivered is told to the
   * subscriber as a `notice` (input comes as notifications: there is no call to reject).
   */
  write(data: Buffer): void {
    const stdin = this.options.remote.stdin;
    if (this.ended) return; // the pane hears the exit; late keystrokes have nowhere to go
    if (stdin === undefined || !this.options.info.stdin) {
      this.notice(
        new AppError({
          code: 'failed-precondition',
          message: 'This terminal takes no input: the container was started without stdin.',
        }),
      );
      return;
    }
    if (stdin.writableLength > maxPendingInputBytes) {
      this.notice(
        new AppError({
          code: 'resource-exhausted',
          message: 'Too much input is waiting for the container to read it.',
          hint: 'Wait for the process to catch up, then paste the rest.',
        }),
      );
      return;
    }
    if (data.length === 0) return;
    this.options.handle.countOut(data.length);
    this.flow.inputSent();
    stdin.write(data, (error) => {
      if (error != null && !this.ended) this.notice(inputClosedError(error));
    });
  }

  /** Something the pane should show without the session ending. */
  notice(error: AppError): void {
    if (!this.ended) this.sink?.next({ type: 'notice', error: toAppErrorData(error) });
  }

  /** A new size for the PTY; without a tty there is none to size. */
  resize(cols: number, rows: number): void {
    if (this.options.info.tty && !this.ended) this.options.remote.resize(cols, rows);
  }

  ack(bytes: number): void {
    this.flow.ack(bytes);
  }

  /** Ends the session now; the exit event says who ended it. */
  close(by: ClosedBy): void {
    this.finish(closedEnding(by));
  }

  dispose(): void {
    if (this.disposed) return;
    this.finish(closedEnding('shutdown'));
    this.disposed = true;
    this.flow.dispose();
    this.sink = undefined;
  }

  private async watchEnd(): Promise<void> {
    const outcome: CommandOutcome = await this.options.remote.result.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    // The remote side is done: what the streaming layer still holds is bounded, so read it
    // out whatever was acknowledged, and give streams that never end a moment.
    this.draining = true;
    for (const output of this.outputs) output.resume();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.outputs.map(outputDone)),
      new Promise((resolve) => (timer = setTimeout(resolve, outputsSettleMs))),
    ]);
    clearTimeout(timer);
    if (this.ended || this.ending) return;
    this.ending = true;
    const check = containerCheck(this.options.info.kind, outcome);
    const fate =
      check === 'none'
        ? undefined
        : await this.options
            .containerFate(check === 'settle')
            .catch(terminalLog.failure('Could not learn how the container fared', 'info'));
    this.finish(describeEnding(this.options.info, outcome, fate));
  }

  private finish(ending: TerminalEnding): void {
    if (this.ended) return;
    this.ended = true;
    this.options.handle.end(ending.session);
    this.flow.pushExit(ending.event);
    this.options.remote.dispose();
    this.options.onEnded(this);
  }
}

export function endedError(): AppError {
  return new AppError({
    code: 'not-found',
    message: 'That terminal has ended.',
    hint: 'Reopen it to start a new session.',
  });
}

function inputClosedError(error: Error): AppError {
  return new AppError(
    {
      code: 'unavailable',
      message: 'The terminal’s input is closed.',
      detail: error.message,
    },
    { cause: error },
  );
}
