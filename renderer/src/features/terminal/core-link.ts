/**
 * A pane's link to its terminal in the core, as an xterm addon (xterm's AttachAddon is the
 * model): once loaded it opens the session, maps keystrokes, pastes and sizes onto the
 * contract's one-way `terminals.write`/`resize`, writes the output into xterm and
 * acknowledges it as xterm parses it; disposing it ends the session. Nothing else in the
 * pane knows the wire. It touches only the few members of the terminal in `LinkedTerminal`,
 * so it is tested against the contract with a stand-in for xterm.
 */
import type { IDisposable, ITerminalAddon, Terminal } from '@xterm/xterm';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import { DisposableStore, type Disposable } from '../../../../shared/lifecycle';
import type { TerminalEvent, TerminalInfo, TerminalKind } from '../../../../shared/model';
import type { PortholeClient } from '../../platform';
import { StreamShaper } from './bytes';
import { AckBatcher, ackBatchBytes, inputBytes, inputPieces, type InputEncoding } from './flow';
import { LineDiscipline } from './line-discipline';
import { ResizeDebouncer, resizeDebounceMs, type Timers } from './resize';

/** What a pane is a terminal into. */
export interface TerminalTarget {
  readonly nodeId: string;
  readonly containerId: string;
  /** For the title until the core names it. */
  readonly containerName: string;
  readonly podName?: string;
  readonly kind: TerminalKind;
  /** exec: the argv; absent means the container's shell, which the core finds as it opens. */
  readonly command?: readonly string[];
  /** A line the pane starts with, before any output (a debug container says where it looks). */
  readonly banner?: string;
}

export type ConnectionPhase =
  | {
      readonly phase: 'opening';
      readonly command?: readonly string[];
      /** exec of the container's shell: the core looks for one first. */
      readonly shell?: boolean;
    }
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

export interface CoreLinkListener {
  phase(phase: ConnectionPhase): void;
  /** Every byte the link wrote into the terminal (output, and the local echo without a tty). */
  wrote(bytes: Uint8Array): void;
  /** Something worth a line in the pane that doesn't end it (a refused keystroke). */
  notice(message: string): void;
}

/** The members of xterm's Terminal the link uses. */
export type LinkedTerminal = Pick<
  Terminal,
  'cols' | 'rows' | 'write' | 'onData' | 'onBinary' | 'onResize' | 'options'
>;

export interface CoreLinkOptions {
  readonly resizeDelayMs?: number;
  /** Output is handed to xterm in pieces of at most this many bytes. */
  readonly pieceBytes?: number;
  readonly timers?: Timers;
}

/**
 * Input typed or pasted while the session is still opening is kept up to this many bytes
 * (a typed-ahead command, a paste), and the rest refused with a notice.
 */
const maxEarlyInput = 1024 * 1024;
const encoder = new TextEncoder();

export class CoreLinkAddon implements ITerminalAddon, Disposable {
  private current: ConnectionPhase;
  private info: TerminalInfo | undefined;
  private term: LinkedTerminal | undefined;
  private readonly store = new DisposableStore();
  private subscription: Disposable | undefined;
  private readonly shaper = new StreamShaper();
  private readonly acks: AckBatcher;
  private readonly sizes: ResizeDebouncer;
  private lines = new LineDiscipline();
  /** Input from before the session was live, in order: sent the moment it is. */
  private early: { data: string; encoding: InputEncoding }[] = [];
  private earlySize = 0;
  private size: { cols: number; rows: number } | undefined;
  private closed = false;
  private received = 0;
  private readonly pieceBytes: number;
  /** The argv that runs (the core's choice of shell included): what Reopen runs again. */
  command: readonly string[] | undefined;

  constructor(
    private readonly client: PortholeClient,
    readonly target: TerminalTarget,
    private readonly listener: CoreLinkListener,
    options: CoreLinkOptions = {},
  ) {
    this.command = target.command;
    this.current = {
      phase: 'opening',
      ...(target.command !== undefined && { command: target.command }),
      ...(target.kind === 'exec' && target.command === undefined && { shell: true }),
    };
    this.pieceBytes = options.pieceBytes ?? ackBatchBytes;
    const notify = client.notify.terminals;
    this.acks = new AckBatcher((bytes) => {
      // An ack after the end is harmless to lose: nothing is left to pace.
      if (this.info !== undefined) this.send(() => notify.ack(this.info!.terminalId, bytes));
    });
    this.sizes = new ResizeDebouncer(
      (cols, rows) => {
        if (this.info !== undefined) {
          this.send(() => notify.resize(this.info!.terminalId, cols, rows), 'The new size');
        }
      },
      options.resizeDelayMs ?? resizeDebounceMs,
      options.timers,
    );
  }

  get phase(): ConnectionPhase {
    return this.current;
  }

  /** Output bytes received from the core so far. */
  get bytesReceived(): number {
    return this.received;
  }

  /** Loaded into a terminal (`term.loadAddon`): opens the session at the terminal's size. */
  activate(term: Terminal): void {
    this.link(term);
  }

  /** `activate` for anything shaped like a terminal (tests). */
  link(term: LinkedTerminal): void {
    this.term = term;
    const listen = (disposable: IDisposable): void => void this.store.add(disposable);
    listen(term.onData((data) => this.input(data, 'utf8')));
    listen(term.onBinary((data) => this.input(data, 'binary')));
    listen(term.onResize(({ cols, rows }) => this.resize(cols, rows)));
    void this.start(term.cols, term.rows);
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
    this.store.dispose();
  }

  private async start(cols: number, rows: number): Promise<void> {
    this.size = { cols, rows };
    const terminals = this.client.services.terminals;
    try {
      // One round trip: without a command, the core finds the shell as it opens.
      const info = await terminals.open({
        nodeId: this.target.nodeId,
        containerId: this.target.containerId,
        kind: this.target.kind,
        ...(this.target.kind === 'exec' && this.command !== undefined && { command: this.command }),
        cols,
        rows,
      });
      if (this.closed) {
        // Closed while opening: the session the core just started has no pane. A close
        // that fails found it ended already, and nobody is left to tell.
        terminals.close(info.terminalId).catch(() => undefined);
        return;
      }
      this.info = info;
      if (info.kind === 'exec') this.command = info.command;
      this.sizes.opened(cols, rows);
      // Output without a tty has bare newlines; a terminal's own tty would add the CR.
      if (this.term !== undefined) this.term.options.convertEol = !info.tty;
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
      // Now, before any later keystroke: the input path is the same as if typed now.
      const early = this.early;
      this.dropEarly();
      for (const { data, encoding } of early) this.input(data, encoding);
      // Resized while opening: the PTY has the old size.
      if (this.size.cols !== cols || this.size.rows !== rows) {
        this.resize(this.size.cols, this.size.rows);
      }
    } catch (error) {
      if (this.closed) return;
      const data = toAppErrorData(error);
      this.end({ reason: data.message, error: data });
    }
  }

  private input(data: string, encoding: InputEncoding): void {
    const phase = this.current;
    // A new pane has focus before its stream is open (a split, a new tab, Reopen): what is
    // typed meanwhile is meant for the process, so it waits for the stream.
    if (phase.phase === 'opening') {
      this.holdEarly(data, encoding);
      return;
    }
    if (phase.phase !== 'live' || !phase.info.stdin) return;
    // Without a tty nothing echoes or edits lines on the other side: the pane does.
    if (!phase.info.tty && encoding === 'utf8') {
      const { echo, send } = this.lines.input(data);
      if (echo !== '') this.write(encoder.encode(echo));
      if (send !== '') this.sendInput(inputBytes(send, 'utf8'));
      return;
    }
    this.sendInput(inputBytes(data, encoding));
  }

  /** One notification per piece: the port keeps them in order, nothing waits for an answer. */
  private sendInput(bytes: Uint8Array): void {
    const id = this.info?.terminalId;
    if (id === undefined || bytes.length === 0) return;
    const notify = this.client.notify.terminals;
    for (const piece of inputPieces(bytes)) this.send(() => notify.write(id, piece), 'Input');
  }

  private holdEarly(data: string, encoding: InputEncoding): void {
    if (this.earlySize + data.length > maxEarlyInput) {
      this.listener.notice(
        'Input beyond 1 MiB was dropped while the terminal was opening: paste it again.',
      );
      return;
    }
    this.earlySize += data.length;
    this.early.push({ data, encoding });
  }

  private dropEarly(): void {
    this.early = [];
    this.earlySize = 0;
  }

  private resize(cols: number, rows: number): void {
    if (cols <= 0 || rows <= 0) return;
    this.size = { cols, rows };
    if (this.current.phase === 'live' && this.current.info.tty) this.sizes.request(cols, rows);
  }

  /** Sends a notification; one the client refuses (too large) becomes a notice. */
  private send(notification: () => void, what?: string): void {
    try {
      notification();
    } catch (error) {
      if (what !== undefined) this.notice(what, toAppErrorData(error));
    }
  }

  private notice(what: string, error: AppErrorData): void {
    const verb = what === 'Input' ? 'was not delivered' : 'was not applied';
    this.listener.notice(`${what} ${verb}: ${error.message}`);
  }

  private write(bytes: Uint8Array, done?: () => void): void {
    this.listener.wrote(bytes);
    if (this.term === undefined) done?.();
    else this.term.write(bytes, done);
  }

  private onEvent(event: TerminalEvent): void {
    if (this.current.phase !== 'live') return;
    switch (event.type) {
      case 'exit':
        this.end({
          ...(event.exitCode !== undefined && { exitCode: event.exitCode }),
          reason: event.reason,
          ...(event.error !== undefined && { error: event.error }),
          ...(event.mayStillRun === true && { mayStillRun: true }),
          ...(event.container !== undefined && { container: event.container }),
        });
        return;
      case 'notice':
        // The answer to a write or resize, which are one-way: the core's own sentence.
        this.listener.notice(event.error.message);
        return;
      case 'output':
        this.output(event.stream, event.data);
        return;
    }
  }

  private output(stream: 'stdout' | 'stderr', bytes: Uint8Array): void {
    if (this.current.phase !== 'live') return;
    this.received += bytes.length;
    const tty = this.current.info.tty;
    // In pieces, each acknowledged once parsed: xterm parses a big write in time slices
    // with frames drawn between them, and the core should hear about the first part
    // without waiting for the last.
    for (let offset = 0; offset < bytes.length; offset += this.pieceBytes) {
      const piece = bytes.subarray(offset, offset + this.pieceBytes);
      const done = this.acks.track(piece.length);
      const shaped = tty ? piece : this.shaper.shape(stream, piece);
      if (shaped.length === 0) done();
      else this.write(shaped, done);
    }
  }

  private end(how: Omit<Extract<ConnectionPhase, { phase: 'ended' }>, 'phase' | 'info'>): void {
    if (this.current.phase === 'ended') return;
    const rest = this.shaper.flush();
    if (rest.length > 0) this.write(rest);
    this.dropEarly();
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
