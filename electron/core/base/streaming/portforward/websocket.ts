/**
 * Port-forward over WebSocket (`v4.channel.k8s.io`, or its base64 variant): the fallback
 * when a runtime refuses SPDY. What the runtimes do (verified on containerd 1.6 and 2.1):
 * - the RPC's port list decides the ports (`?ports=` is ignored); port i has data channel
 *   2i and error channel 2i+1. We ask for one port per RPC, so channels 0 and 1.
 * - the runtime dials the pod's port at upgrade time: one TCP connection per socket, so
 *   every local connection needs a new RPC (URLs are single use) and a new socket.
 * - right after the 101 it writes the port (uint16, little endian) as the first message of
 *   each channel, then data. Failures come as text on the error channel, then close 1000.
 * - v4 has no half-close: EOF can only be sent by closing the whole socket.
 *
 * The socket comes from ../websocket's connectWebSocket, which hands it over paused right
 * after the 101: frames that arrived in the same TCP read (the port prefix, the runtime's
 * error text, a server's first bytes) wait until the listeners here are attached.
 */
import { setMaxListeners } from 'node:events';
import { Readable, Writable } from 'node:stream';
import WebSocket from 'ws';
import { AppError, isAppError } from '../../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../../shared/lifecycle';
import type { Dialer } from '../dial';
import {
  MAX_MESSAGE_PAYLOAD,
  connectWebSocket,
  decodeMessage,
  encodeMessage,
  type StreamTlsOptions,
} from '../websocket';
import { MAX_ERROR_TEXT } from './text';
import type { PortForwardTransport, RemoteConnection, StreamUrlRequest } from './types';

export const WEBSOCKET_PORT_FORWARD_PROTOCOLS: readonly string[] = [
  'v4.channel.k8s.io',
  'v4.base64.channel.k8s.io',
];

export const DEFAULT_WEBSOCKET_UPGRADE_TIMEOUT_MS = 10_000;
/** The runtime sends at most 32 KiB per message (its copy buffer); anything huge is hostile. */
const MAX_PAYLOAD = 32 * 1024 * 1024 + 1;
const READABLE_HIGH_WATER_MARK = 256 * 1024;
const WRITABLE_HIGH_WATER_MARK = 64 * 1024;
const DATA_CHANNEL = 0;
const ERROR_CHANNEL = 1;

function swallow(): void {
  // The bridge reports stream errors; this keeps one that races its listeners unhandled-free.
}

function lost(detail: string): AppError {
  return new AppError({
    code: 'connection-lost',
    message: 'The WebSocket to the runtime closed unexpectedly.',
    detail,
  });
}

function malformed(message: string, detail?: string): AppError {
  return new AppError({
    code: 'protocol-error',
    message: `The runtime broke the port-forward protocol: ${message}`,
    ...(detail !== undefined && { detail }),
  });
}

/**
 * One local connection's WebSocket, open and paused (see connectWebSocket). The readable and
 * writable are backpressured: a full readable pauses the socket (TCP pushes back on the
 * runtime); writes complete once ws handed them to the socket.
 */
export class WebSocketRemoteConnection implements RemoteConnection {
  readonly canHalfClose = false;
  readonly readable: Readable;
  readonly writable: Writable;
  readonly errorText: Promise<string>;
  private resolveErrorText!: (text: string) => void;
  private readonly base64: boolean;
  /** Per channel: has the runtime's 2-byte port prefix been seen? */
  private readonly prefixSeen = [false, false];
  private readonly errorChunks: Buffer[] = [];
  private errorSize = 0;
  private failure: AppError | undefined;
  private closedLocally = false;
  private paused = false;
  private readonly closeListeners = new Set<() => void>();

  constructor(
    private readonly ws: WebSocket,
    readonly remotePort: number,
  ) {
    this.errorText = new Promise((resolve) => (this.resolveErrorText = resolve));
    this.readable = new Readable({
      highWaterMark: READABLE_HIGH_WATER_MARK,
      read: () => this.onDemand(),
    });
    this.writable = new Writable({
      highWaterMark: WRITABLE_HIGH_WATER_MARK,
      write: (chunk: Buffer, _encoding, callback) => this.send(chunk, callback),
      // No half-close in v4: ending our side sends nothing (the bridge closes the socket).
      final: (callback) => callback(),
    });
    this.readable.on('error', swallow);
    this.writable.on('error', swallow);

    this.base64 = ws.protocol.includes('base64.channel.k8s.io');
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('error', (error) => this.onError(error));
    ws.once('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
    // Closed between the upgrade and now: ws emitted 'close' before we listened.
    if (ws.readyState === WebSocket.CLOSED) {
      queueMicrotask(() => this.onClose(1006, 'closed before the connection was set up'));
    } else {
      ws.resume();
    }
  }

  get protocol(): string {
    return this.ws.protocol;
  }

  /** Called once when the socket is gone. */
  onDidClose(listener: () => void): Disposable {
    this.closeListeners.add(listener);
    return toDisposable(() => this.closeListeners.delete(listener));
  }

  /** Fails the connection with `error` and closes the socket. */
  abort(error: AppError): void {
    this.failure ??= error;
    this.close();
  }

  close(): void {
    if (this.closedLocally) return;
    this.closedLocally = true;
    // Both directions are done or being abandoned, and every write's callback has fired
    // (the data is in the socket): no close handshake to wait for.
    this.ws.terminate();
  }

  private onError(error: Error): void {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    // A protocol violation: end now rather than wait (up to 30 s) for a close frame from
    // a server that sends garbage.
    if (code.startsWith('WS_ERR_'))
      this.abort(malformed('invalid WebSocket framing.', error.message));
    else this.failure ??= lost(error.message);
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.failure !== undefined) return;
    const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    let channel: number;
    let payload: Buffer;
    try {
      ({ channel, payload } = decodeMessage(buffer, isBinary, { base64: this.base64 }));
    } catch (error) {
      this.abort(isAppError(error) ? error : malformed(String(error)));
      return;
    }
    // One port per socket: channels 0 and 1. Others (none expected) are ignored.
    if (channel !== DATA_CHANNEL && channel !== ERROR_CHANNEL) return;
    let body = payload;
    if (!this.prefixSeen[channel]) {
      if (payload.length === 0) return;
      if (payload.length < 2 || payload.readUInt16LE(0) !== this.remotePort) {
        this.abort(
          malformed(
            `the first message of channel ${channel} does not name port ${this.remotePort}.`,
            `got ${payload.subarray(0, 8).toString('hex')}`,
          ),
        );
        return;
      }
      this.prefixSeen[channel] = true;
      body = payload.subarray(2);
    }
    if (body.length === 0) return;
    if (channel === ERROR_CHANNEL) {
      if (this.errorSize < MAX_ERROR_TEXT) {
        const piece = body.subarray(0, MAX_ERROR_TEXT - this.errorSize);
        this.errorChunks.push(piece);
        this.errorSize += piece.length;
      }
      return;
    }
    if (!this.readable.push(body) && !this.paused) {
      this.paused = true;
      this.ws.pause();
    }
  }

  private onDemand(): void {
    if (!this.paused) return;
    this.paused = false;
    this.ws.resume();
  }

  private send(data: Buffer, callback: (error?: Error | null) => void): void {
    if (this.ws.readyState !== WebSocket.OPEN) {
      callback(this.failure ?? lost('the socket closed before the data was sent'));
      return;
    }
    let offset = 0;
    do {
      const end = Math.min(offset + MAX_MESSAGE_PAYLOAD, data.length);
      const message = encodeMessage(DATA_CHANNEL, data.subarray(offset, end), {
        base64: this.base64,
      });
      const last = end >= data.length;
      // The last message's callback fires once ws wrote it to the socket: that is what
      // holds a fast writer back.
      this.ws.send(
        message,
        { binary: !this.base64 },
        last ? (error) => callback(error ? lost(error.message) : null) : undefined,
      );
      offset = end;
    } while (offset < data.length);
  }

  private onClose(code: number, reason: string): void {
    const clean = code === 1000 || code === 1005;
    const error =
      this.failure ??
      (this.closedLocally || clean
        ? undefined
        : lost(`close code ${code}${reason !== '' ? ` (${reason})` : ''}`));
    this.resolveErrorText(Buffer.concat(this.errorChunks).toString('utf8').trim());
    if (!this.readable.readableEnded && !this.readable.destroyed) {
      // A clean close keeps what arrived readable; a broken one fails the stream.
      if (error !== undefined) this.readable.destroy(error);
      else if (this.closedLocally) this.readable.destroy();
      else this.readable.push(null);
    }
    this.writable.destroy();
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const listener of listeners) listener();
  }
}

export interface WebSocketConnectionOptions {
  readonly url: string;
  readonly remotePort: number;
  readonly protocols?: readonly string[];
  readonly dialer?: Dialer;
  readonly tls?: StreamTlsOptions;
  /** Bound on dial + TLS + upgrade. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Dials the stream URL (through the Dialer, with TLS for https) and upgrades it. Rejects with
 * an UpgradeError (shared by both transports) when the runtime refused, 'deadline-exceeded',
 * 'cancelled' or 'unavailable' otherwise.
 */
export async function openWebSocketConnection(
  options: WebSocketConnectionOptions,
): Promise<WebSocketRemoteConnection> {
  const ws = await connectWebSocket({
    url: options.url,
    protocols: options.protocols ?? WEBSOCKET_PORT_FORWARD_PROTOCOLS,
    timeoutMs: options.timeoutMs ?? DEFAULT_WEBSOCKET_UPGRADE_TIMEOUT_MS,
    maxPayload: MAX_PAYLOAD,
    ...(options.dialer !== undefined && { dialer: options.dialer }),
    ...(options.tls !== undefined && { tls: options.tls }),
    ...(options.signal !== undefined && { signal: options.signal }),
  });
  return new WebSocketRemoteConnection(ws, options.remotePort);
}

export interface WebSocketTransportOptions {
  readonly requestUrl: StreamUrlRequest;
  readonly dialer?: Dialer;
  readonly tls?: StreamTlsOptions;
  readonly timeoutMs?: number;
}

/** A new PortForward RPC and WebSocket for every connection; nothing shared between them. */
export class WebSocketPortForwardTransport implements PortForwardTransport {
  readonly kind = 'websocket' as const;
  private negotiated: string = WEBSOCKET_PORT_FORWARD_PROTOCOLS[0] ?? '';
  private readonly live = new Set<WebSocketRemoteConnection>();
  private readonly controller = new AbortController();
  private readonly closeListeners = new Set<(error?: AppError) => void>();
  private isClosed = false;

  constructor(private readonly options: WebSocketTransportOptions) {
    // Every connection being opened listens on this signal (its RPC and its upgrade, each
    // removed when done): a burst of connections is not a listener leak.
    setMaxListeners(0, this.controller.signal);
  }

  get protocol(): string {
    return this.negotiated;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  async open(remotePort: number): Promise<RemoteConnection> {
    if (this.isClosed) {
      throw new AppError({ code: 'cancelled', message: 'The port-forward transport is closed.' });
    }
    const signal = this.controller.signal;
    const { url } = await this.options.requestUrl([remotePort], signal);
    const connection = await openWebSocketConnection({
      url,
      remotePort,
      signal,
      ...(this.options.dialer !== undefined && { dialer: this.options.dialer }),
      ...(this.options.tls !== undefined && { tls: this.options.tls }),
      ...(this.options.timeoutMs !== undefined && { timeoutMs: this.options.timeoutMs }),
    });
    if (this.isClosed) {
      connection.close();
      throw new AppError({ code: 'cancelled', message: 'The port-forward transport is closed.' });
    }
    this.negotiated = connection.protocol;
    this.live.add(connection);
    connection.onDidClose(() => this.live.delete(connection));
    return connection;
  }

  onDidClose(listener: (error?: AppError) => void): Disposable {
    this.closeListeners.add(listener);
    return toDisposable(() => this.closeListeners.delete(listener));
  }

  dispose(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.controller.abort();
    for (const connection of [...this.live]) connection.close();
    this.live.clear();
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const listener of listeners) listener();
  }
}
