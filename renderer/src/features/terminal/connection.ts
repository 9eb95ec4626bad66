/**
 * One terminal's conversation with the core, from `open` to its end: the xterm side
 * (TerminalSession) hands it keystrokes and sizes and gets bytes back to draw. Knows
 * nothing of xterm, so the mapping is tested against the contract alone.
 */
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type { TerminalEvent, TerminalInfo, TerminalKind } from '../../../../shared/model';
import type { PortholeClient } from '../../platform';
import { base64ToBytes, StreamShaper } from './bytes';
import { AckBatcher, ackBatchBytes, InputQueue, type InputEncoding } from './flow';
import { ResizeDebouncer, resizeDebounceMs, type Timers } from './resize';

/** What a pane is a terminal into. */
export interface TerminalTarget {
  readonly nodeId: string;
  readonly containerId: string;
  /** For the title until the core names it. */
  readonly containerName: string;
  readonly podName?: string;
  readonly kind: TerminalKind;
  /** exec: the argv; absent means the container's shell, probed first. */
  readonly command?: readonly string[];
}

export type ConnectionPhase =
  | { readonly phase: 'probing' }
  | { readonly phase: 'opening'; readonly command?: readonly string[] }
  | { readonly phase: 'live'; readonly info: TerminalInfo }
  | {
      readonly phase: 'ended';
      readonly info?: TerminalInfo;
      readonly exitCode?: number;
      readonly reason: string;
      readonly error?: AppErrorData;
      /** The stream broke: the process may still run in the container (see LeftoverFinder). */
      readonly mayStillRun?: boolean;
      /** It ended because its container stopped or was removed (see TerminalEvent). */
      readonly container?: 'stopped' | 'removed';
    };

export interface ConnectionListener {
  phase(phase: ConnectionPhase): void;
  /** Bytes to draw (already shaped: stderr in red); call `done` once xterm parsed them. */
  output(bytes: Uint8Array, done: () => void): void;
  /** Something worth a line in the pane that doesn't end it (a refused keystroke). */
  notice(message: string): void;
}

export interface ConnectionOptions {
  readonly resizeDelayMs?: number;
  readonly ackBatchBytes?: number;
  /** Output is handed to xterm in pieces of at most this many bytes. */
  readonly pieceBytes?: number;
  readonly timers?: Timers;
}

export class TerminalConnection implements Disposable {
  private current: ConnectionPhase = { phase: 'opening' };
  private info: TerminalInfo | undefined;
  private subscription: Disposable | undefined;
  private readonly shaper = new StreamShaper();
  private readonly acks: AckBatcher;
  private readonly input: InputQueue;
  private readonly sizes: ResizeDebouncer;
  private size: { cols: number; rows: number } | undefined;
  private closed = false;
  private readonly pieceBytes: number;
  /** The argv that ran (the probed shell included): what Reopen runs again. */
  command: readonly string[] | undefined;

  constructor(
    private readonly client: PortholeClient,
    readonly target: TerminalTarget,
    private readonly listener: ConnectionListener,
    options: ConnectionOptions = {},
  ) {
    this.command = target.command;
    this.pieceBytes = options.pieceBytes ?? ackBatchBytes;
    const terminals = client.services.terminals;
    this.acks = new AckBatcher((bytes) => {
      const id = this.info?.terminalId;
      // An ack after the end is harmless to lose: nothing is left to pace.
      if (id !== undefined) terminals.ack(id, bytes).catch(() => undefined);
    }, options.ackBatchBytes ?? ackBatchBytes);
    this.input = new InputQueue(
      (data, encoding) => {
        const id = this.info?.terminalId;
        return id === undefined ? Promise.resolve() : terminals.write(id, data, encoding);
      },
      (error) => this.listener.notice(`Input was not delivered: ${toAppErrorData(error).message}`),
    );
    this.sizes = new ResizeDebouncer(
      (cols, rows) => {
        const id = this.info?.terminalId;
        if (id !== undefined) {
          terminals
            .resize(id, cols, rows)
            .catch((error: unknown) =>
              this.listener.notice(
                `The new size was not applied: ${toAppErrorData(error).message}`,
              ),
            );
        }
      },
      options.resizeDelayMs ?? resizeDebounceMs,
      options.timers,
    );
  }

  get phase(): ConnectionPhase {
    return this.current;
  }

  /** Probes the shell when needed, opens at `cols`×`rows`, then streams until the end. */
  async start(cols: number, rows: number): Promise<void> {
    this.size = { cols, rows };
    const terminals = this.client.services.terminals;
    try {
      if (this.target.kind === 'exec' && this.command === undefined) {
        this.setPhase({ phase: 'probing' });
        this.command = await terminals.probeShell(this.target.nodeId, this.target.containerId);
        if (this.closed) return;
      }
      this.setPhase({
        phase: 'opening',
        ...(this.command !== undefined && { command: this.command }),
      });
      // The size the pane has now (it may have changed while probing).
      const opened = this.size;
      const info = await terminals.open({
        nodeId: this.target.nodeId,
        containerId: this.target.containerId,
        kind: this.target.kind,
        ...(this.target.kind === 'exec' && this.command !== undefined && { command: this.command }),
        cols: opened.cols,
        rows: opened.rows,
      });
      if (this.closed) {
        // Closed while opening: the session the core just started has no pane. A close
        // that fails found it ended already, and nobody is left to tell.
        terminals.close(info.terminalId).catch(() => undefined);
        return;
      }
      this.info = info;
      this.sizes.opened(opened.cols, opened.rows);
      this.setPhase({ phase: 'live', info });
      this.subscription = this.client.subscribe(
        'terminal',
        { terminalId: info.terminalId },
        (event) => this.onEvent(event),
        (error) =>
          this.end({
            reason: 'The connection to the terminal was lost.',
            error: toAppErrorData(error),
          }),
      );
      // Resized while opening: the PTY has the old size.
      if (this.size.cols !== opened.cols || this.size.rows !== opened.rows) {
        this.resize(this.size.cols, this.size.rows);
      }
    } catch (error) {
      if (this.closed) return;
      const data = toAppErrorData(error);
      this.end({ reason: data.message, error: data });
    }
  }

  /** Keystrokes and pastes (`binary`: xterm's one-byte-per-character mouse reports). */
  write(data: string, encoding: InputEncoding = 'utf8'): void {
    if (this.current.phase !== 'live' || !this.current.info.stdin) return;
    this.input.push(data, encoding);
  }

  resize(cols: number, rows: number): void {
    if (cols <= 0 || rows <= 0) return;
    this.size = { cols, rows };
    if (this.current.phase === 'live' && this.current.info.tty) this.sizes.request(cols, rows);
  }

  /** Ends the session (the pane is closing, or the user asked). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const id = this.info?.terminalId;
    const live = this.current.phase === 'live';
    this.end({ reason: 'Closed.' });
    // The pane is going: a close that fails found the session ended already, and there
    // is nobody left to tell.
    if (id !== undefined && live) this.client.services.terminals.close(id).catch(() => undefined);
  }

  dispose(): void {
    this.close();
  }

  private onEvent(event: TerminalEvent): void {
    if (this.current.phase !== 'live') return;
    if (event.type === 'exit') {
      this.end({
        ...(event.exitCode !== undefined && { exitCode: event.exitCode }),
        reason: event.reason,
        ...(event.error !== undefined && { error: event.error }),
        ...(event.mayStillRun === true && { mayStillRun: true }),
        ...(event.container !== undefined && { container: event.container }),
      });
      return;
    }
    const bytes = base64ToBytes(event.data);
    // In pieces, each acknowledged once parsed: xterm parses a big write in time slices
    // with frames drawn between them, and the core should hear about the first part
    // without waiting for the last.
    for (let offset = 0; offset < bytes.length; offset += this.pieceBytes) {
      const piece = bytes.subarray(offset, offset + this.pieceBytes);
      const done = this.acks.track(piece.length);
      const shaped = this.current.info.tty ? piece : this.shaper.shape(event.stream, piece);
      if (shaped.length === 0) done();
      else this.listener.output(shaped, done);
    }
  }

  private end(how: Omit<Extract<ConnectionPhase, { phase: 'ended' }>, 'phase' | 'info'>): void {
    if (this.current.phase === 'ended') return;
    const rest = this.shaper.flush();
    if (rest.length > 0) this.listener.output(rest, () => undefined);
    this.acks.flush();
    this.input.stop();
    this.sizes.dispose();
    this.subscription?.dispose();
    this.subscription = undefined;
    this.setPhase({ phase: 'ended', ...(this.info !== undefined && { info: this.info }), ...how });
  }

  private setPhase(phase: ConnectionPhase): void {
    this.current = phase;
    this.listener.phase(phase);
  }
}
