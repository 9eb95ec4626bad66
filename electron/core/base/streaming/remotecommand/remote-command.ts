/**
 * A live exec/attach (a remote command) over the streams one attempt opened: the data streams,
 * resize and stdin half-close as the protocol allows, and one `result` that settles once
 * the server has given its last word (status and close) or the connection failed.
 */
import type { Readable, Writable } from 'node:stream';
import type { Disposable } from '../../../../../shared/lifecycle';
import type { TransportKind } from './handlers';
import type { RemoteStreams, TerminalSize } from './streams';

export interface Negotiated {
  readonly transport: TransportKind;
  readonly protocol: string;
}

export interface AttemptRecord {
  readonly transport: TransportKind;
  readonly protocolsOffered: readonly string[];
  /** `refused`: the server (or our requirements) turned the transport down; `failed`: anything else. */
  readonly outcome: 'ok' | 'refused' | 'failed';
  /** The HTTP status of a refused upgrade. */
  readonly status?: number;
  readonly message?: string;
  /** RPC + upgrade + streams ready (or until the failure). */
  readonly durationMs: number;
}

export interface RemoteCommandResult {
  /** exec only, from the v4+ status (0 on success). */
  readonly exitCode?: number;
  /** `Success`, `NonZeroExitCode`, `InternalError`, `Failure` (v2/v3 text), `Unknown` (v1). */
  readonly reason: string;
  readonly message: string;
  readonly negotiated: Negotiated;
  readonly attempts: readonly AttemptRecord[];
}

export interface RemoteCommandCapabilities {
  /** Terminal resizes reach the PTY (tty and protocol ≥ v3). */
  readonly resize: boolean;
  /** stdin can be ended while output continues (SPDY FIN, or WebSocket v5 CLOSE). */
  readonly closeStdin: boolean;
}

export interface RemoteCommand extends Disposable {
  /** Backpressured: respect `write()` returning false. */
  readonly stdin?: Writable;
  /** Backpressured: the server is paused while these are not read. */
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  readonly negotiated: Negotiated;
  readonly attempts: readonly AttemptRecord[];
  readonly capabilities: RemoteCommandCapabilities;
  /**
   * What the command can't do although it asked for it, in one sentence: only with a
   * transport the user forced (e.g. WebSocket v4, which can't end piped stdin).
   */
  readonly limitation?: string;
  /** Sends a terminal size. No-op when unsupported (see `capabilities.resize`) or for zero sizes. */
  resize(cols: number, rows: number): void;
  /** Ends stdin (SPDY FIN / v5 CLOSE). Throws an AppError when the protocol can't (WebSocket < v5). */
  closeStdin(): void;
  /**
   * Settles once: resolves with the server's status (also a non-zero exit or an
   * InternalError it reported), rejects with an AppError when the connection failed, the
   * status was garbage or missing (v4+), or it was disposed first. Output already
   * received stays readable on stdout/stderr after it settles.
   */
  readonly result: Promise<RemoteCommandResult>;
}

export class RemoteCommandImpl implements RemoteCommand {
  readonly stdin?: Writable;
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  readonly negotiated: Negotiated;
  readonly capabilities: RemoteCommandCapabilities;
  readonly result: Promise<RemoteCommandResult>;
  private disposed = false;
  private readonly onAbort = (): void => this.dispose();

  constructor(
    private readonly streams: RemoteStreams,
    readonly attempts: readonly AttemptRecord[],
    private readonly kind: 'exec' | 'attach',
    private readonly signal: AbortSignal | undefined,
    readonly limitation?: string,
  ) {
    if (streams.stdin !== undefined) this.stdin = streams.stdin;
    if (streams.stdout !== undefined) this.stdout = streams.stdout;
    if (streams.stderr !== undefined) this.stderr = streams.stderr;
    this.negotiated = { transport: streams.transport, protocol: streams.protocol };
    this.capabilities = { resize: streams.canResize, closeStdin: streams.canCloseStdin };
    this.result = this.settle();
    // Nobody may be awaiting the result (fire-and-forget commands); a rejection must not
    // become an unhandled one that takes the process down.
    this.result.catch(() => undefined);
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted) this.dispose();
  }

  resize(cols: number, rows: number): void {
    if (!this.streams.canResize || this.disposed) return;
    const size = { cols: Math.floor(cols), rows: Math.floor(rows) };
    // The runtime ignores zero sizes anyway; never send nonsense.
    if (!(size.cols > 0 && size.rows > 0 && size.cols <= 0xffff && size.rows <= 0xffff)) return;
    this.streams.sendResize(size);
  }

  /** Sends the initial size right away: the PTY starts at 0×0. */
  sendInitialSize(size: TerminalSize | undefined): void {
    if (size !== undefined) this.resize(size.cols, size.rows);
  }

  closeStdin(): void {
    this.streams.closeStdin();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.streams.dispose();
  }

  private async settle(): Promise<RemoteCommandResult> {
    try {
      const { exitCode, ...rest } = await this.streams.status;
      // Attach reports how the stream ended, not a process exit code.
      return {
        ...rest,
        ...(this.kind === 'exec' && exitCode !== undefined && { exitCode }),
        negotiated: this.negotiated,
        attempts: this.attempts,
      };
    } finally {
      this.signal?.removeEventListener('abort', this.onAbort);
    }
  }
}
