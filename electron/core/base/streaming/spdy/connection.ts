import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { AppError } from '../../../../../shared/errors';
import { Emitter } from '../../../../../shared/event';
import type { Disposable } from '../../../../../shared/lifecycle';
import {
  HeaderCompressor,
  HeaderDecompressor,
  encodeHeaderBlock,
  type HeaderMap,
} from './compression';
import { resetError } from './errors';
import {
  FLAG_FIN,
  FrameError,
  FrameParser,
  GoAwayStatus,
  MAX_FRAME_PAYLOAD,
  MAX_STREAM_ID,
  RstStatus,
  encodeControlFrame,
  encodeDataFrameHeader,
  type ControlFrame,
  type FrameHandler,
} from './frames';
import { SpdyStreamImpl, type SpdyStream, type StreamHost, type WriteCallback } from './stream';

/**
 * A client SPDY/3.1 session over an upgraded connection, as spdystream (the server in
 * containerd, CRI-O and the kubelet) expects it.
 *
 * Why our own framing and not spdy-transport: spdy-transport models HTTP over SPDY.
 * spdystream is not HTTP: its SYN_REPLYs carry no headers, which spdy-transport answers with
 * RST_STREAM PROTOCOL_ERROR (the runtime takes the RST on stdin as EOF: uploads were cut at
 * 64 KiB), and spdy-transport enforces the SPDY/3.1 send window that spdystream never
 * refills with WINDOW_UPDATE (uploads stall at 64 KiB). See shared/docs/cri-streaming.md §6.
 * What we keep from SPDY/3.1 is the framing; flow control is TCP's (see stream.ts).
 */
export interface SpdyConnection extends Disposable {
  /** The negotiated X-Stream-Protocol-Version; '' when the server named none. */
  readonly protocol: string;
  /** True once the session is over (whatever the reason). */
  readonly closed: boolean;
  /**
   * Opens a stream: SYN_STREAM with these headers, resolved on SYN_REPLY. Calls may overlap:
   * ids are assigned in the order the frames are written (strictly increasing, as
   * spdystream requires). Rejects on RST_STREAM, GOAWAY, session close or timeout.
   */
  createStream(headers: HeaderMap, options?: CreateStreamOptions): Promise<SpdyStream>;
  /** Round-trip time of a PING, in milliseconds. */
  ping(options?: PingOptions): Promise<number>;
  /**
   * Sends GOAWAY: no new streams from now on; open streams carry on. The runtime closes the
   * connection when its streams are done, which then closes the session normally.
   */
  goAway(): void;
  /**
   * Called once when the session ends: no error for a normal end (GOAWAY from either side,
   * or our own dispose); otherwise 'connection-lost' (the connection dropped),
   * 'protocol-error' (the runtime broke SPDY) or 'internal' (a stream consumer threw while
   * handling data, or header compression failed). Registered after the end, the listener
   * is called on the next microtask.
   */
  onDidClose(listener: (error?: AppError) => void): Disposable;
  /**
   * Resets the open streams (CANCEL), sends GOAWAY and closes the connection. Open streams
   * fail with 'cancelled' after their buffered data. Idempotent.
   */
  dispose(): void;
}

export interface CreateStreamOptions {
  /** Send FIN with SYN_STREAM: we will never write (e.g. port-forward error streams). */
  readonly fin?: boolean;
  /** How long to wait for SYN_REPLY (default: the session's, 30 s). */
  readonly timeoutMs?: number;
}

export interface PingOptions {
  /** Default 30 s. */
  readonly timeoutMs?: number;
}

export interface SessionOptions {
  readonly protocol: string;
  /** Bytes that arrived with the 101 answer, already part of the SPDY byte stream. */
  readonly head?: Buffer;
  /** Destroyed with the session: e.g. the TCP socket under a TLS socket. */
  readonly underlying?: Duplex;
  /** Default SYN_REPLY timeout (default 30 s, as the runtimes' own stream creation timeout). */
  readonly streamTimeoutMs?: number;
  /** Largest DATA frame we send (default 64 KiB). */
  readonly maxDataFrameSize?: number;
  /** Readable buffer of each stream before it pauses the session (default 256 KiB). */
  readonly streamReadableHighWaterMark?: number;
  /**
   * How long a frame may stay incomplete with no byte arriving while we read (default
   * 10 s): a server that announces more than it sends would otherwise hang the session.
   */
  readonly frameTimeoutMs?: number;
}

export const DEFAULT_STREAM_TIMEOUT_MS = 30_000;
export const DEFAULT_FRAME_TIMEOUT_MS = 10_000;
export const DEFAULT_PING_TIMEOUT_MS = 30_000;
/**
 * DATA frames we send carry at most 64 KiB. spdystream allocates each frame whole
 * (`make([]byte, length)`) before handing it on, so frames near the 16 MiB limit would cost
 * the runtime big allocations; 64 KiB makes the 8-byte header negligible (0.01 %), matches
 * the chunks Node reads from sockets and files, and keeps streams interleaving finely (a
 * resize or a port-forward reply never waits behind megabytes of another stream's upload).
 */
export const DEFAULT_MAX_DATA_FRAME_SIZE = 64 * 1024;
export const DEFAULT_STREAM_HIGH_WATER_MARK = 256 * 1024;
const STREAM_WRITABLE_HIGH_WATER_MARK = 64 * 1024;
/** createStream calls not settled yet: queued, or written and waiting for SYN_REPLY. */
const MAX_PENDING_CREATES = 256;
const MAX_OUTSTANDING_PINGS = 16;
/**
 * Frames we send only in reaction to the peer (PING echoes, refusals) are dropped while this
 * much is queued on the socket: a peer that floods without reading can't grow our buffers.
 */
const REACTIVE_WRITE_LIMIT = 1024 * 1024;
/** After dispose: how long the socket may take to flush our RST/GOAWAY before destroy. */
const CLOSE_GRACE_MS = 2_000;
/** Smaller payloads are copied behind their header: one write instead of two. */
const COALESCE_LIMIT = 4096;

interface QueuedCreate {
  readonly headers: HeaderMap;
  readonly fin: boolean;
  readonly timeoutMs: number;
  readonly resolve: (stream: SpdyStream) => void;
  readonly reject: (error: AppError) => void;
}

interface Opening {
  readonly stream: SpdyStreamImpl;
  readonly resolve: (stream: SpdyStream) => void;
  readonly reject: (error: AppError) => void;
  readonly timer: NodeJS.Timeout;
}

interface OutstandingPing {
  readonly start: number;
  readonly resolve: (rttMs: number) => void;
  readonly reject: (error: AppError) => void;
  readonly timer: NodeJS.Timeout;
}

/** How the session ended, which decides what streams and listeners are told. */
type CloseCause =
  | { readonly kind: 'disposed' }
  | { readonly kind: 'graceful'; readonly streamError?: AppError }
  | { readonly kind: 'failed'; readonly error: AppError };

const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'host',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
]);
/** RFC 9110 token characters, lowercase. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * Lowercases names and checks them: spdystream kills the whole session for an uppercase or
 * duplicate name or a hop-by-hop header, so this fails early with 'invalid-argument'.
 */
export function normalizeHeaders(headers: HeaderMap): HeaderMap {
  const out = new Map<string, string>();
  const invalid = (message: string): AppError =>
    new AppError({ code: 'invalid-argument', message });
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (!HEADER_NAME.test(name))
      throw invalid(`Invalid SPDY header name ${JSON.stringify(rawName)}.`);
    if (FORBIDDEN_HEADERS.has(name)) throw invalid(`The SPDY header ${name} is not allowed.`);
    if (out.has(name)) throw invalid(`Duplicate SPDY header ${name}.`);
    if (typeof value !== 'string' || /[\0\r\n]/.test(value)) {
      throw invalid(`Invalid value for the SPDY header ${name}.`);
    }
    out.set(name, value);
  }
  return Object.freeze(Object.fromEntries(out));
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

export class SpdyConnectionImpl implements SpdyConnection, StreamHost, FrameHandler {
  readonly protocol: string;
  private readonly socket: Duplex;
  private readonly underlying: Duplex | undefined;
  private readonly parser: FrameParser;
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streamTimeoutMs: number;
  private readonly maxDataFrameSize: number;
  private readonly readableHighWaterMark: number;

  /** Streams open on the wire, by id. */
  private readonly streams = new Map<number, SpdyStreamImpl>();
  /** Streams waiting for SYN_REPLY. */
  private readonly openings = new Map<number, Opening>();
  private readonly createQueue: QueuedCreate[] = [];
  private creating = false;
  private nextStreamId = 1;

  private readonly pings = new Map<number, OutstandingPing>();
  private nextPingId = 1;

  /** Streams whose consumer is behind: while any, the socket is paused. */
  private readonly stalled = new Set<SpdyStreamImpl>();
  /** A received header block is being inflated: the parser waits for it. */
  private decoding = false;
  /** The socket ended or closed: the session ends once the parser is done (finishOnceParsed). */
  private socketEnded = false;
  private socketPaused = false;
  /** _write callbacks waiting for the socket to drain (one per writing stream at most). */
  private drainWaiters: WriteCallback[] = [];

  private goAwaySent = false;
  private goAwayReceived: { readonly status: number } | undefined;
  private isClosed = false;
  private closeError: AppError | undefined;
  private readonly didClose = new Emitter<AppError | undefined>();
  private socketError: Error | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private readonly frameTimeoutMs: number;
  /** Runs while a frame is incomplete and no byte came since: see watchIncompleteFrame. */
  private frameTimer: NodeJS.Timeout | undefined;

  constructor(socket: Duplex, options: SessionOptions) {
    this.socket = socket;
    this.underlying = options.underlying;
    this.protocol = options.protocol;
    this.streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
    this.maxDataFrameSize = options.maxDataFrameSize ?? DEFAULT_MAX_DATA_FRAME_SIZE;
    if (
      !Number.isInteger(this.maxDataFrameSize) ||
      this.maxDataFrameSize < 1 ||
      this.maxDataFrameSize > MAX_FRAME_PAYLOAD
    ) {
      throw new RangeError(`Invalid SPDY DATA frame size ${this.maxDataFrameSize}`);
    }
    this.readableHighWaterMark =
      options.streamReadableHighWaterMark ?? DEFAULT_STREAM_HIGH_WATER_MARK;
    this.frameTimeoutMs = options.frameTimeoutMs ?? DEFAULT_FRAME_TIMEOUT_MS;
    this.parser = new FrameParser(this);

    socket.on('data', this.onSocketData);
    socket.on('end', this.onSocketEnd);
    socket.on('close', this.onSocketClose);
    socket.on('error', this.onSocketError);
    socket.on('drain', this.onSocketDrain);
    this.underlying?.on('error', this.onSocketError);

    if (options.head !== undefined && options.head.length > 0) this.receive(options.head);
    if (!this.isClosed && !this.socketPaused) socket.resume();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  // ---- public API -----------------------------------------------------------------------

  async createStream(headers: HeaderMap, options: CreateStreamOptions = {}): Promise<SpdyStream> {
    const normalized = normalizeHeaders(headers);
    const refusal = this.refusalError();
    if (refusal !== undefined) throw refusal;
    const pending = this.createQueue.length + (this.creating ? 1 : 0) + this.openings.size;
    if (pending >= MAX_PENDING_CREATES) {
      throw new AppError({
        code: 'resource-exhausted',
        message: `Too many streams waiting to be opened (${MAX_PENDING_CREATES}).`,
      });
    }
    return new Promise<SpdyStream>((resolve, reject) => {
      this.createQueue.push({
        headers: normalized,
        fin: options.fin ?? false,
        timeoutMs: options.timeoutMs ?? this.streamTimeoutMs,
        resolve,
        reject,
      });
      this.pumpCreates();
    });
  }

  ping(options: PingOptions = {}): Promise<number> {
    if (this.isClosed) return Promise.reject(this.closedError());
    if (this.pings.size >= MAX_OUTSTANDING_PINGS) {
      return Promise.reject(
        new AppError({ code: 'resource-exhausted', message: 'Too many pings in flight.' }),
      );
    }
    // Client pings are odd (the server's would be even), and must not collide with one
    // still in flight after the 31-bit id wraps.
    let id = this.nextPingId;
    while (this.pings.has(id)) id = id >= MAX_STREAM_ID - 1 ? 1 : id + 2;
    this.nextPingId = id >= MAX_STREAM_ID - 1 ? 1 : id + 2;
    const timeoutMs = options.timeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pings.delete(id);
        reject(
          new AppError({
            code: 'deadline-exceeded',
            message: `The runtime did not answer a ping within ${timeoutMs} ms.`,
          }),
        );
      }, timeoutMs);
      this.pings.set(id, { start: performance.now(), resolve, reject, timer });
      this.writeFrame(encodeControlFrame({ type: 'ping', id }));
    });
  }

  goAway(): void {
    if (this.isClosed || this.goAwaySent) return;
    this.goAwaySent = true;
    // We accept no server-initiated streams, so the last good one is 0.
    this.writeFrame(
      encodeControlFrame({ type: 'goaway', lastGoodStreamId: 0, status: GoAwayStatus.Ok }),
    );
    this.rejectQueuedCreates(this.goingAwayError('We'));
  }

  onDidClose(listener: (error?: AppError) => void): Disposable {
    if (!this.isClosed) return this.didClose.event(listener);
    // Closed already: the listener hears it next, asynchronously, unless disposed first.
    const late = new Emitter<AppError | undefined>();
    const subscription = late.event(listener);
    const error = this.closeError;
    queueMicrotask(() => {
      late.fire(error);
      late.dispose();
    });
    return subscription;
  }

  dispose(): void {
    if (this.isClosed) return;
    // Tell the runtime before we go: reset what is open (so it stops waiting on stdin and
    // friends), then GOAWAY. Both are best effort: the TCP close that follows ends every
    // stream on the runtime's side anyway.
    for (const id of this.streams.keys()) {
      this.writeFrame(
        encodeControlFrame({ type: 'rst-stream', streamId: id, status: RstStatus.Cancel }),
      );
    }
    if (!this.goAwaySent) {
      this.goAwaySent = true;
      this.writeFrame(
        encodeControlFrame({ type: 'goaway', lastGoodStreamId: 0, status: GoAwayStatus.Ok }),
      );
    }
    this.close({ kind: 'disposed' });
  }

  // ---- StreamHost -----------------------------------------------------------------------

  sendData(stream: SpdyStreamImpl, data: Buffer, fin: boolean, callback: WriteCallback): void {
    if (this.isClosed || !this.socket.writable) {
      callback(this.closedError());
      return;
    }
    const socket = this.socket;
    let accepted: boolean;
    if (data.length <= Math.min(COALESCE_LIMIT, this.maxDataFrameSize)) {
      const header = encodeDataFrameHeader(stream.id, fin ? FLAG_FIN : 0, data.length);
      accepted = socket.write(data.length === 0 ? header : Buffer.concat([header, data]));
    } else {
      // Header and payload slices go out as one writev, without copying the payload.
      socket.cork();
      accepted = true;
      for (let offset = 0; offset < data.length; offset += this.maxDataFrameSize) {
        const piece = data.subarray(offset, offset + this.maxDataFrameSize);
        const last = offset + piece.length >= data.length;
        socket.write(encodeDataFrameHeader(stream.id, fin && last ? FLAG_FIN : 0, piece.length));
        accepted = socket.write(piece);
      }
      socket.uncork();
    }
    if (accepted) callback();
    else this.drainWaiters.push(callback);
  }

  sendReset(stream: SpdyStreamImpl, status: number): void {
    if (this.isClosed) return;
    this.writeFrame(encodeControlFrame({ type: 'rst-stream', streamId: stream.id, status }));
  }

  wantsData(stream: SpdyStreamImpl): void {
    this.unstall(stream);
  }

  receivedAll(stream: SpdyStreamImpl): void {
    // Its buffered data is bounded already; what else the socket holds is other streams'
    // (the exit status on the error stream, behind a stdout whose last frame filled it).
    this.unstall(stream);
  }

  release(stream: SpdyStreamImpl): void {
    if (this.streams.get(stream.id) === stream) this.streams.delete(stream.id);
    this.unstall(stream);
  }

  private unstall(stream: SpdyStreamImpl): void {
    if (this.stalled.delete(stream)) this.updateReading();
  }

  // ---- FrameHandler ---------------------------------------------------------------------

  onControlFrame(frame: ControlFrame): void {
    switch (frame.type) {
      case 'syn-reply':
        this.inflateThen(frame.headerBlock, (headers) =>
          this.onSynReply(frame.streamId, headers, (frame.flags & FLAG_FIN) !== 0),
        );
        return;
      case 'headers':
        this.inflateThen(frame.headerBlock, () => {
          // spdystream never sends HEADERS; only its FIN matters to a byte stream.
          if ((frame.flags & FLAG_FIN) !== 0) this.streams.get(frame.streamId)?.handleRemoteFin();
        });
        return;
      case 'syn-stream':
        // The headers must still go through our inflate context to keep it in step.
        this.inflateThen(frame.headerBlock, () => {
          // Server-initiated streams mean nothing to a CRI client: refuse them.
          this.writeReactive(
            encodeControlFrame({
              type: 'rst-stream',
              streamId: frame.streamId,
              status: RstStatus.RefusedStream,
            }),
          );
        });
        return;
      case 'rst-stream':
        this.onRstStream(frame.streamId, frame.status);
        return;
      case 'ping':
        this.onPing(frame.id);
        return;
      case 'goaway':
        this.onGoAway(frame.lastGoodStreamId, frame.status);
        return;
      case 'settings':
      case 'window-update':
        // Flow control is TCP's here: spdystream neither sends nor honours these, and we
        // do not enforce SPDY windows (see the module comment). Nothing to do.
        return;
    }
  }

  onDataFrame(streamId: number, flags: number, piece: Buffer, last: boolean): void {
    const stream = this.streams.get(streamId);
    if (stream === undefined) {
      // Data for a stream that is over (reset, refused) is dropped, as spdystream does. One
      // that never existed (CRI servers open no streams; ours are odd and increasing) is
      // not a late frame but a broken byte stream: garbage after the upgrade looks so.
      if (streamId % 2 === 1 && streamId < this.nextStreamId) return;
      throw new FrameError(`DATA frame for stream ${streamId}, which was never opened`);
    }
    if (piece.length > 0 && !stream.handleData(piece) && stream.isLive) {
      this.stalled.add(stream);
      this.updateReading();
    }
    if (last && (flags & FLAG_FIN) !== 0) stream.handleRemoteFin();
  }

  // ---- frames received ------------------------------------------------------------------

  private onSynReply(streamId: number, headers: HeaderMap, fin: boolean): void {
    const opening = this.openings.get(streamId);
    // A reply for a stream we gave up on (timeout) or a duplicate reply: ignore it.
    if (opening === undefined) return;
    this.settleOpening(streamId);
    opening.stream.handleReply(headers, fin);
    opening.resolve(opening.stream);
  }

  private onRstStream(streamId: number, status: number): void {
    const error = resetError(status, streamId);
    const opening = this.openings.get(streamId);
    if (opening !== undefined) {
      this.settleOpening(streamId);
      this.streams.delete(streamId);
      opening.stream.abandon();
      opening.reject(
        new AppError({
          code: error.code,
          message: `The runtime refused to open the stream (${opening.stream.headers.streamtype ?? streamId}).`,
          ...(error.detail !== undefined && { detail: error.detail }),
        }),
      );
      return;
    }
    this.streams.get(streamId)?.handleRemoteReset(status, error);
  }

  private onPing(id: number): void {
    if (id % 2 === 0) {
      // A server-initiated ping (spdystream never sends one, but the spec allows it): echo.
      this.writeReactive(encodeControlFrame({ type: 'ping', id }));
      return;
    }
    const ping = this.pings.get(id);
    if (ping === undefined) return; // late answer to a ping that timed out
    this.pings.delete(id);
    clearTimeout(ping.timer);
    ping.resolve(performance.now() - ping.start);
  }

  private onGoAway(lastGoodStreamId: number, status: number): void {
    if (this.goAwayReceived !== undefined) return;
    this.goAwayReceived = { status };
    const error = this.goingAwayError('The runtime');
    // Streams not written yet never will be; streams the runtime says it did not process
    // (ids above lastGoodStreamId) never get a SYN_REPLY. Both fail now. spdystream only
    // sends GOAWAY when it closes the session, after its streams are done.
    this.rejectQueuedCreates(error);
    for (const [id, opening] of [...this.openings]) {
      if (id <= lastGoodStreamId) continue;
      this.settleOpening(id);
      this.streams.delete(id);
      opening.stream.abandon();
      opening.reject(error);
    }
  }

  // ---- socket ---------------------------------------------------------------------------

  private readonly onSocketData = (chunk: Buffer | string): void => {
    this.receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private receive(chunk: Buffer): void {
    if (this.isClosed) return;
    try {
      this.parser.push(chunk);
    } catch (error) {
      this.frameFailure(error);
      return;
    }
    this.watchIncompleteFrame();
  }

  /**
   * A frame that stops half-way (a header announcing more than ever comes) would leave the
   * session waiting for ever: once no byte arrived for `frameTimeoutMs` while we were
   * reading and a frame is incomplete, the runtime broke the protocol. Any byte restarts
   * the clock; a paused socket (our consumer is behind) does not count.
   */
  private watchIncompleteFrame(): void {
    if (this.frameTimer !== undefined) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
    if (this.isClosed || this.parser.atFrameBoundary) return;
    this.frameTimer = setTimeout(() => {
      this.frameTimer = undefined;
      if (this.isClosed || this.parser.atFrameBoundary) return;
      if (this.socketPaused) {
        this.watchIncompleteFrame();
        return;
      }
      this.protocolFailure(
        new FrameError(
          `An incomplete SPDY frame, then nothing for ${formatSeconds(this.frameTimeoutMs)}`,
        ),
      );
    }, this.frameTimeoutMs);
    this.frameTimer.unref();
  }

  private readonly onSocketEnd = (): void => {
    this.socketEnded = true;
    this.finishOnceParsed();
  };

  private readonly onSocketClose = (): void => {
    this.socketEnded = true;
    this.finishOnceParsed();
  };

  /**
   * The connection ended: decide how once the frames it brought are handled. A header
   * block may still be inflating, with the frames behind it (a status, GOAWAY) waiting:
   * CRI-O sends a short exec's whole end together with its replies, and judging before
   * reading them called a clean end a lost connection.
   */
  private finishOnceParsed(): void {
    if (this.decoding && this.socketError === undefined) return;
    this.finishFromSocket();
  }

  private readonly onSocketError = (error: Error): void => {
    this.socketError ??= error;
    // 'close' follows an error on a Node socket; a Duplex from elsewhere may not promise
    // that, so end here too.
    this.finishFromSocket();
  };

  private readonly onSocketDrain = (): void => {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const callback of waiters) callback();
  };

  /** The connection ended or broke: decide whether that was a normal end. */
  private finishFromSocket(): void {
    if (this.isClosed) return;
    const cause = this.socketError;
    const lost = new AppError(
      {
        code: 'connection-lost',
        message: "The connection to the runtime's stream server was lost.",
        detail:
          cause === undefined
            ? 'The connection closed without GOAWAY.'
            : `${(cause as NodeJS.ErrnoException).code ?? cause.name}: ${cause.message}`,
      },
      { cause },
    );
    const goAway = this.goAwayReceived;
    if (goAway?.status === GoAwayStatus.Ok) {
      // The runtime said it was done, so the session ended normally, even if the TCP close
      // came as a reset. A stream it left open (spdystream resets them all before GOAWAY)
      // was cut short only if the connection broke.
      this.close({ kind: 'graceful', ...(cause !== undefined && { streamError: lost }) });
      return;
    }
    if (goAway !== undefined) {
      this.close({
        kind: 'failed',
        error: new AppError({
          code: 'protocol-error',
          message: 'The runtime closed the stream session after a protocol error.',
          detail: `GOAWAY status ${goAway.status}`,
        }),
      });
      return;
    }
    if (this.goAwaySent && cause === undefined) {
      // We said goodbye and the runtime closed once its streams were done.
      this.close({ kind: 'graceful' });
      return;
    }
    this.close({ kind: 'failed', error: lost });
  }

  private updateReading(): void {
    if (this.isClosed) return;
    const pause = this.decoding || this.stalled.size > 0;
    if (pause === this.socketPaused) return;
    this.socketPaused = pause;
    if (pause) this.socket.pause();
    else this.socket.resume();
  }

  /** Writes a frame we decided to send; small and bounded by our own calls. */
  private writeFrame(frame: Buffer): void {
    if (this.isClosed || !this.socket.writable) return;
    this.socket.write(frame);
  }

  /** Writes a frame the peer provoked, unless the peer is not reading what we send. */
  private writeReactive(frame: Buffer): void {
    if (this.socket.writableLength > REACTIVE_WRITE_LIMIT) return;
    this.writeFrame(frame);
  }

  // ---- header blocks --------------------------------------------------------------------

  /**
   * Inflates a received header block, then runs `then`. Inflating is asynchronous (Node's
   * zlib), and the inflate context is shared by all blocks, so the parser (and the socket)
   * wait meanwhile: frames are handled strictly in arrival order.
   */
  private inflateThen(block: Buffer, then: (headers: HeaderMap) => void): void {
    this.decoding = true;
    this.parser.pause();
    this.updateReading();
    this.decompressor.decompress(block).then(
      (headers) => {
        if (this.isClosed) return;
        try {
          then(headers);
          this.decoding = false;
          this.updateReading();
          this.parser.resume();
          if (this.socketEnded) this.finishOnceParsed();
        } catch (error) {
          this.frameFailure(error);
        }
      },
      (error: unknown) => this.frameFailure(error),
    );
  }

  // ---- stream creation ------------------------------------------------------------------

  /** Writes queued SYN_STREAMs one at a time: compression order = id order = wire order. */
  private pumpCreates(): void {
    if (this.creating || this.isClosed) return;
    const next = this.createQueue.shift();
    if (next === undefined) return;
    this.creating = true;
    const done = (): void => {
      this.creating = false;
      this.pumpCreates();
    };
    this.sendSynStream(next).then(done, done);
  }

  private async sendSynStream(request: QueuedCreate): Promise<void> {
    let headerBlock: Buffer;
    try {
      headerBlock = await this.compressor.compress(encodeHeaderBlock(request.headers));
    } catch (error) {
      if (this.isClosed) {
        // Closed while compressing (dispose() closes the context under us).
        request.reject(this.closedError());
        return;
      }
      // The shared context is unusable from now on: so is the session.
      const failure = new AppError(
        { code: 'internal', message: 'SPDY header compression failed.', detail: String(error) },
        { cause: error },
      );
      request.reject(failure);
      this.close({ kind: 'failed', error: failure });
      return;
    }
    // Compressed but not sent leaves the peer's inflate context behind ours, which is
    // harmless only because nothing is ever sent after this refusal.
    const refusal = this.refusalError();
    if (refusal !== undefined) {
      request.reject(refusal);
      return;
    }
    const streamId = this.nextStreamId;
    if (streamId > MAX_STREAM_ID) {
      request.reject(
        new AppError({
          code: 'resource-exhausted',
          message: 'This stream session has used up its stream ids.',
        }),
      );
      return;
    }
    this.nextStreamId += 2;
    const stream = new SpdyStreamImpl(this, streamId, request.headers, {
      fin: request.fin,
      readableHighWaterMark: this.readableHighWaterMark,
      writableHighWaterMark: STREAM_WRITABLE_HIGH_WATER_MARK,
    });
    this.streams.set(streamId, stream);
    const timer = setTimeout(
      () => this.onOpenTimeout(streamId, request.timeoutMs),
      request.timeoutMs,
    );
    this.openings.set(streamId, {
      stream,
      resolve: request.resolve,
      reject: request.reject,
      timer,
    });
    this.writeFrame(
      encodeControlFrame({
        type: 'syn-stream',
        flags: request.fin ? FLAG_FIN : 0,
        streamId,
        associatedStreamId: 0,
        priority: 0,
        slot: 0,
        headerBlock,
      }),
    );
  }

  private onOpenTimeout(streamId: number, timeoutMs: number): void {
    const opening = this.openings.get(streamId);
    if (opening === undefined) return;
    this.openings.delete(streamId);
    this.streams.delete(streamId);
    this.writeFrame(encodeControlFrame({ type: 'rst-stream', streamId, status: RstStatus.Cancel }));
    opening.stream.abandon();
    const type = opening.stream.headers.streamtype;
    opening.reject(
      new AppError({
        code: 'deadline-exceeded',
        message: `The stream server did not open the ${type !== undefined ? `${type} ` : ''}stream within ${timeoutMs} ms.`,
        detail: `No SYN_REPLY for stream ${streamId} (${JSON.stringify(opening.stream.headers)}).`,
        hint: 'The server acknowledges each stream; a silent one is overloaded or not a CRI stream server.',
      }),
    );
  }

  private settleOpening(streamId: number): void {
    const opening = this.openings.get(streamId);
    if (opening === undefined) return;
    clearTimeout(opening.timer);
    this.openings.delete(streamId);
  }

  private rejectQueuedCreates(error: AppError): void {
    const queued = this.createQueue.splice(0);
    for (const request of queued) request.reject(error);
  }

  /** Why no new stream can be opened now, if so. */
  private refusalError(): AppError | undefined {
    if (this.isClosed) return this.closedError();
    if (this.goAwayReceived !== undefined) return this.goingAwayError('The runtime');
    if (this.goAwaySent) return this.goingAwayError('We');
    return undefined;
  }

  private goingAwayError(who: 'We' | 'The runtime'): AppError {
    return new AppError({
      code: 'unavailable',
      message: 'The stream session is closing: no new streams can be opened.',
      detail: `${who} sent GOAWAY.`,
    });
  }

  private closedError(): AppError {
    return (
      this.closeError ??
      new AppError({ code: 'cancelled', message: 'The stream session is closed.' })
    );
  }

  // ---- closing --------------------------------------------------------------------------

  /**
   * Handling received bytes threw. A FrameError is the runtime breaking the protocol; any
   * other error came from code running inside our handlers, typically a stream consumer's
   * synchronous 'data' listener. Either way the parser is unusable, so the session ends,
   * and nothing escapes into the socket's event handler.
   */
  private frameFailure(error: unknown): void {
    if (error instanceof FrameError) {
      this.protocolFailure(error);
      return;
    }
    this.close({
      kind: 'failed',
      error: new AppError(
        {
          code: 'internal',
          message: 'Handling data from the runtime failed.',
          detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        },
        { cause: error },
      ),
    });
  }

  private protocolFailure(error: FrameError): void {
    if (this.isClosed) return;
    // Tell the runtime why (best effort), then close.
    this.writeFrame(
      encodeControlFrame({
        type: 'goaway',
        lastGoodStreamId: 0,
        status: GoAwayStatus.ProtocolError,
      }),
    );
    this.close({
      kind: 'failed',
      error: new AppError(
        {
          code: 'protocol-error',
          message: 'The runtime sent data that is not valid SPDY/3.',
          detail: error.message,
        },
        { cause: error },
      ),
    });
  }

  private close(cause: CloseCause): void {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.frameTimer !== undefined) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
    const sessionError = cause.kind === 'failed' ? cause.error : undefined;
    this.closeError = sessionError;
    const streamError =
      cause.kind === 'failed'
        ? cause.error
        : cause.kind === 'disposed'
          ? new AppError({ code: 'cancelled', message: 'The stream session was closed.' })
          : cause.streamError;
    const writeError =
      streamError ??
      new AppError({ code: 'connection-lost', message: 'The stream session has ended.' });

    // Pending work first, so nothing below can start new work.
    this.rejectQueuedCreates(writeError);
    for (const [id, opening] of [...this.openings]) {
      // The caller never got these streams: drop them quietly, reject the promise instead.
      this.settleOpening(id);
      this.streams.delete(id);
      opening.stream.abandon();
      opening.reject(writeError);
    }
    for (const ping of this.pings.values()) {
      clearTimeout(ping.timer);
      ping.reject(writeError);
    }
    this.pings.clear();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const callback of waiters) callback(writeError);

    this.stalled.clear();
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const stream of streams) stream.handleSessionClosed(streamError, writeError);

    this.detachSocket(cause.kind !== 'failed' || this.socketError === undefined);
    this.compressor.dispose();
    this.decompressor.dispose();

    // A listener's bug neither breaks the others nor escapes into a socket event handler.
    this.didClose.fire(sessionError);
    this.didClose.dispose();
  }

  private detachSocket(flush: boolean): void {
    const socket = this.socket;
    socket.off('data', this.onSocketData);
    socket.off('end', this.onSocketEnd);
    socket.off('close', this.onSocketClose);
    socket.off('error', this.onSocketError);
    socket.off('drain', this.onSocketDrain);
    this.underlying?.off('error', this.onSocketError);
    // Errors during teardown mean nothing any more, but must never go unhandled.
    const ignore = (): void => undefined;
    socket.on('error', ignore);
    this.underlying?.on('error', ignore);
    const destroy = (): void => {
      if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
      this.closeTimer = undefined;
      socket.destroy();
      this.underlying?.destroy();
    };
    if (!flush || socket.destroyed || !socket.writable) {
      destroy();
      return;
    }
    // Let our last frames (RST/GOAWAY) and FIN out, but not for long.
    socket.once('close', destroy);
    this.closeTimer = setTimeout(destroy, CLOSE_GRACE_MS);
    // Cleared on close; meanwhile it must not keep the process alive on its own.
    this.closeTimer.unref();
    socket.end();
    socket.resume(); // read to EOF so the close can complete
  }
}
