import { Duplex } from 'node:stream';
import { AppError } from '../../../../../shared/errors';
import type { HeaderMap } from './compression';
import { RstStatus } from './frames';

/**
 * One SPDY stream as a Node Duplex: pipe into it and out of it with backpressure.
 *
 * Writing: every write becomes DATA frames; the write callback fires once the socket took
 * the frames (or drained), so a fast producer is held back by the TCP connection, never by
 * the SPDY/3.1 send window (spdystream does no flow control and never sends WINDOW_UPDATE).
 * `end()` sends an empty DATA frame with FIN: that is stdin EOF for an exec.
 *
 * Reading: DATA payloads are pushed as they arrive. When the readable buffer is full the
 * session stops reading its socket until this stream is read again. That pauses EVERY stream
 * of the session (one TCP connection, no per-stream windows): the runtime buffers, nothing is
 * lost, and memory stays bounded; the flip side is that a caller must consume (or destroy)
 * every stream it opened, or the others stall too.
 *
 * How the readable side ends, in order of arrival:
 * - peer FIN (DATA or SYN_REPLY/HEADERS with FIN): 'end' after the buffered data.
 * - peer RST_STREAM CANCEL: also a clean 'end' after the buffered data. That is how the
 *   runtime closes streams when an exec finishes: stdout/stderr get FIN, the error stream
 *   gets its status WITHOUT FIN and then RST CANCEL, like every stream still open, then
 *   GOAWAY and TCP close. A consumer reads the error stream to 'end' and has the status.
 *   `remoteResetStatus` tells a reset from a FIN when that matters.
 * - peer RST_STREAM with an error status: the buffered data is still delivered first, then
 *   the stream is destroyed with an AppError (see errors.ts `resetError`).
 * - session closed: after a GOAWAY (a normal close), like RST CANCEL; when the connection
 *   dropped, the runtime broke the protocol or the session was disposed, like an error RST,
 *   with 'connection-lost', 'protocol-error' or 'cancelled'. A readable side that had
 *   already ended stays ended: no error is raised after a clean end.
 * Once the peer reset the stream or the session is gone, writes fail with the reason and the
 * stream is destroyed (emitting 'close') as soon as its readable side has ended; `end()` on
 * such a stream just completes, because there is nothing left to finish on the wire.
 *
 * Callers must listen for 'error' (or use pipeline/finished), as with any Node stream.
 */
export interface SpdyStream extends Duplex {
  /** Odd, assigned in wire order. */
  readonly id: number;
  /** The headers we sent in SYN_STREAM (normalized: lowercase names). */
  readonly headers: HeaderMap;
  /** The SYN_REPLY's headers: empty from spdystream, which sends none. */
  readonly replyHeaders: HeaderMap;
  /** The status of the peer's RST_STREAM, if it reset this stream. */
  readonly remoteResetStatus: number | undefined;
  /** Sends RST_STREAM (default CANCEL) unless the stream is already closed, and destroys it. */
  reset(status?: number): void;
}

/** What a stream needs from its session. */
export interface StreamHost {
  sendData(stream: SpdyStreamImpl, data: Buffer, fin: boolean, callback: WriteCallback): void;
  sendReset(stream: SpdyStreamImpl, status: number): void;
  /** The consumer wants more: resume reading the socket if this stream held it. */
  wantsData(stream: SpdyStreamImpl): void;
  /**
   * Nothing more comes for this stream (the peer's FIN): it can't hold the socket any
   * longer, since an ended stream never asks for more, even once it has been read out.
   */
  receivedAll(stream: SpdyStreamImpl): void;
  /** The stream is over on the wire (both FINs, or a reset): forget it. */
  release(stream: SpdyStreamImpl): void;
}

export type WriteCallback = (error?: Error | null) => void;

export interface StreamOptions {
  readonly fin: boolean;
  readonly readableHighWaterMark: number;
  readonly writableHighWaterMark: number;
}

const EMPTY = Buffer.alloc(0);
const NO_HEADERS: HeaderMap = Object.freeze({});

export class SpdyStreamImpl extends Duplex implements SpdyStream {
  replyHeaders: HeaderMap = NO_HEADERS;
  private localFin: boolean;
  private remoteEnded = false;
  private resetStatus: number | undefined;
  /** Set once the wire side is gone: writes fail with it. */
  private writeError: AppError | undefined;
  /** Destroy with this once the consumer has read what was buffered before it. */
  private pendingError: AppError | undefined;
  private released = false;
  private destroyOnEnd = false;
  private failing = false;

  constructor(
    private readonly host: StreamHost,
    readonly id: number,
    readonly headers: HeaderMap,
    options: StreamOptions,
  ) {
    super({
      allowHalfOpen: true,
      readableHighWaterMark: options.readableHighWaterMark,
      writableHighWaterMark: options.writableHighWaterMark,
    });
    this.localFin = options.fin;
    // SYN_STREAM already carried FIN: the writable side is over before it began.
    if (options.fin) this.end();
  }

  get remoteResetStatus(): number | undefined {
    return this.resetStatus;
  }

  /** True while the stream is still open on the wire (the session tracks it). */
  get isLive(): boolean {
    return !this.released;
  }

  reset(status: number = RstStatus.Cancel): void {
    if (!this.released) {
      this.host.sendReset(this, status);
      this.release();
    }
    this.writeError ??= new AppError({ code: 'cancelled', message: 'The stream was reset.' });
    this.destroy();
  }

  // ---- from the session ----------------------------------------------------------------

  /** Never handed out (refused, timed out, session gone before SYN_REPLY): drop quietly. */
  abandon(): void {
    this.released = true;
    this.destroy();
  }

  handleReply(headers: HeaderMap, fin: boolean): void {
    this.replyHeaders = headers;
    if (fin) this.handleRemoteFin();
  }

  /** A DATA payload; false when the consumer is behind (the session pauses its socket). */
  handleData(piece: Buffer): boolean {
    if (this.remoteEnded || this.destroyed || this.pendingError !== undefined) return true;
    return this.push(piece);
  }

  handleRemoteFin(): void {
    this.endReadable();
    if (this.localFin) this.release();
  }

  handleRemoteReset(status: number, error: AppError): void {
    this.resetStatus = status;
    this.release();
    this.writeError ??= error;
    this.terminate(status === RstStatus.Cancel ? undefined : error);
  }

  /**
   * The session is gone. `error` undefined means it closed normally (after GOAWAY): the
   * readable side ends cleanly. `writeError` is what later writes fail with.
   */
  handleSessionClosed(error: AppError | undefined, writeError: AppError): void {
    this.released = true;
    this.writeError ??= writeError;
    this.terminate(error);
  }

  // ---- Duplex ---------------------------------------------------------------------------

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: WriteCallback): void {
    if (this.writeError !== undefined) {
      callback(this.writeError);
      return;
    }
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (data.length === 0) {
      callback();
      return;
    }
    this.host.sendData(this, data, false, callback);
  }

  override _final(callback: WriteCallback): void {
    if (this.localFin || this.released) {
      // FIN already sent with SYN_STREAM, or the stream is over on the wire: nothing to do.
      this.localFin = true;
      callback();
      return;
    }
    this.localFin = true;
    this.host.sendData(this, EMPTY, true, (error) => {
      if (!error && this.remoteEnded) this.release();
      callback(error);
    });
  }

  override _read(): void {
    this.host.wantsData(this);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.released) {
      // Destroyed by its owner while still open: tell the runtime we are gone.
      this.host.sendReset(this, RstStatus.Cancel);
      this.release();
    }
    callback(error);
  }

  /**
   * Hands out buffered data as usual; once the last byte received before an error reset is
   * consumed, destroys the stream with that error. Every way of consuming a Readable
   * (flowing 'data', pipe, async iteration, read()) goes through read().
   */
  override read(size?: number): unknown {
    const chunk: unknown = super.read(size);
    const error = this.pendingError;
    if (error !== undefined && this.readableLength === 0 && !this.destroyed && !this.failing) {
      this.failing = true;
      // After this tick, so the consumer handles the chunk just returned first.
      process.nextTick(() => this.destroy(error));
    }
    return chunk;
  }

  // ---- internals ------------------------------------------------------------------------

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.host.release(this);
  }

  private endReadable(): void {
    if (this.remoteEnded) return;
    this.remoteEnded = true;
    this.push(null);
    this.host.receivedAll(this);
  }

  /**
   * The wire side is gone. A readable side that already ended cleanly stays clean (the
   * consumer got everything); otherwise it ends cleanly or fails, after the buffered data.
   * Either way the stream is destroyed ('close') once its readable side has been read out.
   */
  private terminate(error: AppError | undefined): void {
    if (this.destroyed || this.pendingError !== undefined) return;
    if (error === undefined || this.remoteEnded) {
      this.endReadable();
    } else {
      this.remoteEnded = true;
      if (this.readableLength === 0) {
        this.destroy(error);
        return;
      }
      this.pendingError = error;
      return;
    }
    if (this.readableEnded) this.destroy();
    else if (!this.destroyOnEnd) {
      this.destroyOnEnd = true;
      this.once('end', () => this.destroy());
    }
  }
}
