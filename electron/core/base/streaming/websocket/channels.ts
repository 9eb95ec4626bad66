/**
 * A channel-multiplexed WebSocket (`*.channel.k8s.io`): one backpressured Readable per
 * output channel and one Writable per input channel over one socket. Exec/attach
 * (../remotecommand/websocket-streams.ts) and port-forward (../portforward/websocket.ts)
 * both run on it; what a channel means is theirs to say. The one place messages are
 * decoded (base64 variants included) is here, through protocol.ts.
 *
 * Flow control: the socket carries every channel, so when any channel's Readable is above
 * its high-water mark the whole socket is paused (TCP then pushes back on the server) and
 * it resumes once every full channel has been read below the mark. Nothing is buffered
 * beyond a channel's high-water mark plus what one socket read delivered. A consumer that
 * never reads one channel therefore stalls the others, as on the server side.
 */
import { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import { AppError, isAppError } from '../../../../../shared/errors';
import type { Disposable } from '../../../../../shared/lifecycle';
import {
  decodeMessage,
  encodeClose,
  encodeMessage,
  isBase64Protocol,
  MAX_MESSAGE_PAYLOAD,
  type ChannelEncoding,
} from './protocol';
import { logger } from '../../log';

export interface ChannelConnectionOptions {
  /** Buffered bytes per output channel before the socket is paused. */
  readonly highWaterMark?: number;
  /** After we ask for a close, terminate if the server hasn't closed within this. */
  readonly closeTimeoutMs?: number;
  /**
   * Called with the first non-empty message of each output channel, before its payload is
   * delivered: returns what of it is data, or throws an AppError that fails the connection.
   * Port-forward uses it for the port number each channel starts with.
   */
  readonly preamble?: (channel: number, payload: Buffer) => Buffer;
  /** The errors this connection fails with, in the words of the protocol carried on it. */
  readonly errors?: Partial<ChannelErrors>;
}

export interface ChannelErrors {
  /** ws found a violation of the WebSocket framing (`detail`: what it said). */
  framing(detail: string): AppError;
  /** The socket went away, or a write could not be made. */
  lost(detail: string): AppError;
}

const defaultErrors: ChannelErrors = {
  framing: (detail) =>
    new AppError({
      code: 'protocol-error',
      message: 'The stream server broke the WebSocket protocol.',
      detail,
    }),
  lost: (detail) =>
    new AppError({
      code: 'connection-lost',
      message: 'The connection to the stream server was lost.',
      detail,
    }),
};

/** How the connection ended. `error` is set unless the server closed it cleanly. */
export interface ConnectionEnd {
  readonly code: number;
  readonly reason: string;
  /** True when we closed it (dispose or `end`) before the server did. */
  readonly local: boolean;
  readonly error?: AppError;
}

export interface WritableChannelOptions {
  /**
   * Called on `end()`: send the half-close (v5 CLOSE) or fail. Without it, `end()` sends
   * nothing (the caller's protocol has no half-close).
   */
  readonly final?: (callback: (error?: Error | null) => void) => void;
}

const defaultHighWaterMark = 1024 * 1024;
const defaultCloseTimeoutMs = 1000;
/** Close codes that mean "ended on purpose" (1005: closed without a status code). */
const normalCloseCodes = new Set([1000, 1005]);

/**
 * Errors on exposed streams are also reported through the session result; this listener
 * keeps an unobserved stream error from crashing the process, and the log has it at debug.
 */
const swallow = logger('streaming').failure('A WebSocket channel stream failed');

export class ChannelConnection implements Disposable {
  readonly protocol: string;
  readonly closed: Promise<ConnectionEnd>;
  private readonly encoding: ChannelEncoding;
  private readonly readables = new Map<number, Readable>();
  private readonly writables = new Set<Writable>();
  /** Output channels whose preamble has been read (see `preamble`). */
  private readonly started = new Set<number>();
  /** Output channels whose Readable is full: the socket stays paused while any is. */
  private readonly full = new Set<number>();
  private failure: AppError | undefined;
  /** Set once we start closing: `end` keeps received data readable, `abort` drops it. */
  private localClose: 'end' | 'abort' | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private ended: ConnectionEnd | undefined;
  private resolveClosed!: (end: ConnectionEnd) => void;
  private readonly closeTimeoutMs: number;
  private readonly highWaterMark: number;
  private readonly errors: ChannelErrors;

  /**
   * Takes over a socket that connectWebSocket handed over paused; it stays paused until
   * `start()`, so that no message arrives before its channel has a reader.
   */
  constructor(
    private readonly ws: WebSocket,
    private readonly options: ChannelConnectionOptions = {},
  ) {
    this.protocol = ws.protocol;
    this.encoding = { base64: isBase64Protocol(ws.protocol) };
    this.closeTimeoutMs = options.closeTimeoutMs ?? defaultCloseTimeoutMs;
    this.highWaterMark = options.highWaterMark ?? defaultHighWaterMark;
    this.errors = { ...defaultErrors, ...options.errors };
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('error', (error) => this.onSocketError(error));
    ws.once('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
  }

  get isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  /** Starts reading: call once every output channel has its Readable. */
  start(): void {
    if (this.ended !== undefined) return;
    if (!this.isOpen) {
      this.onClose(1006, 'closed before the connection was set up');
      return;
    }
    this.ws.resume();
  }

  /**
   * The Readable of an output channel (the same one on every call). Messages on a channel
   * nobody asked for before `start()` are dropped.
   */
  readable(channel: number): Readable {
    const existing = this.readables.get(channel);
    if (existing !== undefined) return existing;
    const readable = new Readable({
      highWaterMark: this.highWaterMark,
      read: () => this.onDemand(channel),
    });
    readable.on('error', swallow);
    this.readables.set(channel, readable);
    if (this.ended !== undefined) this.settleReadable(readable, this.ended.error);
    return readable;
  }

  /** A backpressured Writable for an input channel; large writes are split into messages. */
  writable(channel: number, options: WritableChannelOptions = {}): Writable {
    const writable = new Writable({
      highWaterMark: 64 * 1024,
      write: (chunk: Buffer, _encoding, callback) => this.send(channel, chunk, callback),
      writev: (chunks, callback) =>
        this.send(channel, Buffer.concat(chunks.map((c) => c.chunk as Buffer)), callback),
      final: (callback) => (options.final ? options.final(callback) : callback()),
    });
    writable.on('error', swallow);
    this.writables.add(writable);
    if (this.ended !== undefined) writable.destroy();
    return writable;
  }

  /** Sends the v5 CLOSE signal for a channel (the caller knows the protocol allows it). */
  sendClose(channel: number, callback: (error?: Error | null) => void): void {
    if (!this.isOpen) {
      callback(
        this.failure ?? this.errors.lost('the channel could not be closed: the connection is gone'),
      );
      return;
    }
    this.ws.send(encodeClose(channel), { binary: true }, (error) =>
      callback(error ? this.errors.lost(error.message) : null),
    );
  }

  /**
   * Closes the WebSocket (1000) after the server's last word, keeping what was received
   * readable; terminates if the server doesn't answer the close quickly.
   */
  end(): void {
    this.close('end');
  }

  /** Fails the connection with an error (e.g. a protocol violation found by the caller). */
  abort(error: AppError): void {
    this.fail(error);
  }

  /** Closes the WebSocket (1000) and discards unread data. */
  dispose(): void {
    this.close('abort');
  }

  /**
   * Closes the socket at once, without the close handshake, and discards unread data: for
   * when every write has reached the socket and nothing more is wanted from the server.
   */
  terminate(): void {
    if (this.localClose !== undefined) return;
    this.localClose = 'abort';
    for (const writable of this.writables) writable.destroy();
    this.ws.terminate();
  }

  private close(mode: 'end' | 'abort'): void {
    if (this.localClose !== undefined) return;
    this.localClose = mode;
    for (const writable of this.writables) writable.destroy();
    if (this.ws.readyState === this.ws.CLOSED) return;
    this.ws.close(1000);
    this.closeTimer = setTimeout(() => this.ws.terminate(), this.closeTimeoutMs);
    this.closeTimer.unref();
  }

  private send(channel: number, data: Buffer, callback: (error?: Error | null) => void): void {
    if (!this.isOpen) {
      callback(this.failure ?? this.errors.lost('the connection closed before the data was sent'));
      return;
    }
    // One message per MAX_MESSAGE_PAYLOAD slice; the callback waits for the last one to
    // reach the socket, which is what backpressures the writer.
    let offset = 0;
    do {
      const end = Math.min(offset + MAX_MESSAGE_PAYLOAD, data.length);
      const slice = data.subarray(offset, end);
      const last = end >= data.length;
      const message = encodeMessage(channel, slice, this.encoding);
      this.ws.send(
        message,
        { binary: !this.encoding.base64 },
        last ? (error) => callback(error ? this.errors.lost(error.message) : null) : undefined,
      );
      offset = end;
    } while (offset < data.length);
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.failure !== undefined) return;
    const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    let channel: number;
    let payload: Buffer;
    try {
      ({ channel, payload } = decodeMessage(buffer, isBinary, this.encoding));
    } catch (error) {
      this.fail(isAppError(error) ? error : this.errors.lost(String(error)));
      return;
    }
    // The server's first message is empty (it marks the connection as established), and
    // channels we don't read (≥ 5 by protocol, or not requested) are ignored.
    const readable = this.readables.get(channel);
    if (readable === undefined || payload.length === 0) return;
    if (this.options.preamble !== undefined && !this.started.has(channel)) {
      this.started.add(channel);
      try {
        payload = this.options.preamble(channel, payload);
      } catch (error) {
        this.fail(isAppError(error) ? error : this.errors.lost(String(error)));
        return;
      }
      if (payload.length === 0) return;
    }
    // A consumer that destroyed its stream wants no more of it: drop, never pause for it
    // (that would stall every other channel, the status included).
    if (readable.destroyed || readable.readableEnded) return;
    if (!readable.push(payload)) {
      this.full.add(channel);
      this.ws.pause();
    }
  }

  private onDemand(channel: number): void {
    if (!this.full.delete(channel)) return;
    if (this.full.size === 0) this.ws.resume();
  }

  private onSocketError(error: Error): void {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    // ws reports protocol violations (bad opcode, oversized message…) as WS_ERR_*. It then
    // sends a close frame and waits up to 30 s for the server's: a server that sends
    // garbage won't answer, so end the connection now.
    if (code.startsWith('WS_ERR_')) {
      this.fail(this.errors.framing(error.message));
      return;
    }
    this.failure ??= this.errors.lost(error.message);
  }

  private fail(error: AppError): void {
    this.failure ??= error;
    this.ws.terminate();
  }

  private onClose(code: number, reason: string): void {
    if (this.ended !== undefined) return;
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    const local = this.localClose !== undefined;
    let error = this.failure;
    if (error === undefined && !local && !normalCloseCodes.has(code)) {
      error = this.errors.lost(
        `WebSocket closed with code ${code}${reason !== '' ? ` (${reason})` : ''}`,
      );
    }
    this.ended = { code, reason, local, ...(error !== undefined && { error }) };
    for (const readable of this.readables.values()) this.settleReadable(readable, error);
    for (const writable of this.writables) writable.destroy();
    this.resolveClosed(this.ended);
  }

  /** A clean end keeps what was received readable; a failure surfaces on the stream too. */
  private settleReadable(readable: Readable, error: AppError | undefined): void {
    if (readable.readableEnded || readable.destroyed) return;
    if (error !== undefined) readable.destroy(error);
    else if (this.localClose === 'abort') readable.destroy();
    else readable.push(null);
  }
}
