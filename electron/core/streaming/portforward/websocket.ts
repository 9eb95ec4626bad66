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
 * Why not ../websocket's connectWebSocket: it resolves with the socket a few ticks after
 * 'open', and frames that arrived in the same TCP read as the 101 are emitted in between,
 * with nobody listening. For port-forward those are the port prefix, the runtime's error
 * text and, for a server that speaks first, the pod's first bytes (observed: the prefix and
 * the error text went missing about one time in three). Here the message listener is
 * attached when the WebSocket is constructed, before any frame can be parsed. The codec and
 * the refusal mapping are reused from ../websocket.
 */
import { setMaxListeners } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { isIP, type createConnection } from 'node:net';
import { Readable, Writable, type Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import WebSocket from 'ws';
import { AppError, isAppError } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import { directDialer, readRefusalBody, type Dialer } from '../dial';
import {
  MAX_MESSAGE_PAYLOAD,
  decodeMessage,
  encodeMessage,
  upgradeFailure,
  upgradeRefused,
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
 * One local connection's WebSocket. The readable and writable are backpressured: a full
 * readable pauses the socket (TCP pushes back on the runtime); writes complete once ws handed
 * them to the socket.
 */
export class WebSocketRemoteConnection implements RemoteConnection {
  readonly canHalfClose = false;
  readonly readable: Readable;
  readonly writable: Writable;
  readonly errorText: Promise<string>;
  /** Resolves once the upgrade succeeded with one of our protocols; rejects otherwise. */
  readonly opened: Promise<void>;
  private resolveErrorText!: (text: string) => void;
  private resolveOpened!: () => void;
  private rejectOpened!: (error: AppError) => void;
  private base64 = false;
  private isOpen = false;
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
    private readonly offered: readonly string[],
  ) {
    this.errorText = new Promise((resolve) => (this.resolveErrorText = resolve));
    this.opened = new Promise((resolve, reject) => {
      this.resolveOpened = resolve;
      this.rejectOpened = reject;
    });
    // Only observed through `opened`; a caller that stopped waiting must not see it unhandled.
    this.opened.catch(swallow);
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

    ws.binaryType = 'nodebuffer';
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('open', () => this.onOpen());
    ws.on('unexpected-response', (_request, response) => this.onRefused(response));
    ws.on('error', (error) => this.onError(error));
    ws.once('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
  }

  get protocol(): string {
    return this.ws.protocol;
  }

  /** Called once when the socket is gone. */
  onDidClose(listener: () => void): Disposable {
    this.closeListeners.add(listener);
    return toDisposable(() => this.closeListeners.delete(listener));
  }

  /** Fails the upgrade (if still pending) with `error` and closes the socket. */
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

  private onOpen(): void {
    const protocol = this.ws.protocol;
    if (!this.offered.includes(protocol)) {
      this.abort(
        upgradeFailure(
          'failed-precondition',
          'The runtime accepted the WebSocket but chose none of the offered protocols.',
          this.offered,
          { status: 101, detail: `offered ${this.offered.join(', ')}; got "${protocol}"` },
        ),
      );
      return;
    }
    this.base64 = protocol.includes('base64.channel.k8s.io');
    this.isOpen = true;
    this.resolveOpened();
  }

  private onRefused(response: IncomingMessage): void {
    const status = response.statusCode ?? 0;
    void readRefusalBody(response).then((body) =>
      this.abort(upgradeRefused(status, body, this.offered)),
    );
  }

  private onError(error: Error): void {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    this.failure ??= code.startsWith('WS_ERR_')
      ? malformed('invalid WebSocket framing.', error.message)
      : this.isOpen
        ? lost(error.message)
        : new AppError(
            {
              code: 'unavailable',
              message: 'The WebSocket upgrade with the runtime failed.',
              detail: error.message,
            },
            { cause: error },
          );
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
    if (!this.isOpen) {
      this.rejectOpened(
        error ??
          new AppError({
            code: 'unavailable',
            message: 'The runtime closed the connection during the WebSocket upgrade.',
          }),
      );
    }
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

interface Endpoint {
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  readonly wsUrl: string;
}

function parseStreamUrl(url: string): Endpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError({
      code: 'invalid-argument',
      message: 'The stream URL is not valid.',
      detail: url,
    });
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) {
    throw new AppError({
      code: 'invalid-argument',
      message: `The stream URL has an unsupported scheme (${parsed.protocol}).`,
      detail: url,
    });
  }
  const secure = parsed.protocol === 'https:' || parsed.protocol === 'wss:';
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const port = parsed.port !== '' ? Number(parsed.port) : secure ? 443 : 80;
  parsed.protocol = secure ? 'wss:' : 'ws:';
  return { secure, host, port, wsUrl: parsed.href };
}

/** TLS over whatever the dialer returned (a TCP socket or an SSH channel); abortable. */
function wrapTls(
  raw: Duplex,
  endpoint: Endpoint,
  tls: StreamTlsOptions | undefined,
  signal: AbortSignal,
  interrupted: () => AppError,
): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const servername = tls?.servername ?? (isIP(endpoint.host) === 0 ? endpoint.host : undefined);
    const socket = tlsConnect({
      socket: raw,
      rejectUnauthorized: tls?.rejectUnauthorized ?? true,
      ...(tls?.ca !== undefined && { ca: tls.ca }),
      ...(servername !== undefined && { servername }),
    });
    const settle = (error?: AppError): void => {
      socket.off('error', onError);
      socket.off('secureConnect', onConnect);
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) {
        resolve(socket);
        return;
      }
      socket.destroy();
      reject(error);
    };
    const onConnect = (): void => settle();
    const onAbort = (): void => settle(interrupted());
    const onError = (error: Error): void =>
      settle(
        new AppError(
          {
            code: 'unavailable',
            message: `The TLS handshake with the stream server at ${endpoint.host}:${endpoint.port} failed.`,
            detail: error.message,
            hint: "containerd signs its stream server's certificate itself: trust its CA for this node, or turn off certificate verification for it.",
          },
          { cause: error },
        ),
      );
    socket.on('error', onError);
    socket.on('secureConnect', onConnect);
    signal.addEventListener('abort', onAbort, { once: true });
  });
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
 * an UpgradeError (../spdy's, shared by both transports) when the runtime refused, 'deadline-exceeded', 'cancelled' or
 * 'unavailable' otherwise.
 */
export async function openWebSocketConnection(
  options: WebSocketConnectionOptions,
): Promise<WebSocketRemoteConnection> {
  const endpoint = parseStreamUrl(options.url);
  const protocols = options.protocols ?? WEBSOCKET_PORT_FORWARD_PROTOCOLS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBSOCKET_UPGRADE_TIMEOUT_MS;
  const controller = new AbortController();
  const interrupted = (): AppError =>
    controller.signal.reason === 'timeout'
      ? new AppError({
          code: 'deadline-exceeded',
          message: `The runtime did not complete the WebSocket upgrade within ${timeoutMs} ms.`,
          detail: options.url,
        })
      : new AppError({ code: 'cancelled', message: 'Opening the connection was cancelled.' });
  const timer = setTimeout(() => controller.abort('timeout'), timeoutMs);
  const onOuterAbort = (): void => controller.abort('cancelled');
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (options.signal?.aborted) controller.abort('cancelled');

  let socket: Duplex | undefined;
  try {
    if (controller.signal.aborted) throw interrupted();
    try {
      socket = await (options.dialer ?? directDialer)(
        endpoint.host,
        endpoint.port,
        controller.signal,
      );
    } catch (error) {
      if (controller.signal.aborted) throw interrupted();
      throw new AppError(
        {
          code: 'unavailable',
          message: `Could not reach the stream server at ${endpoint.host}:${endpoint.port}.`,
          detail: error instanceof Error ? error.message : String(error),
        },
        { cause: error },
      );
    }
    if (endpoint.secure) {
      socket = await wrapTls(socket, endpoint, options.tls, controller.signal, interrupted);
    }
    if (controller.signal.aborted) throw interrupted();
    const connected = socket;
    const ws = new WebSocket(endpoint.wsUrl, [...protocols], {
      // ws asks for its connection synchronously; ours is already dialled.
      createConnection: (() => connected) as unknown as typeof createConnection,
      perMessageDeflate: false,
      followRedirects: false,
      maxPayload: MAX_PAYLOAD,
      skipUTF8Validation: true,
    });
    const connection = new WebSocketRemoteConnection(ws, options.remotePort, protocols);
    const onAbort = (): void => connection.abort(interrupted());
    controller.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await connection.opened;
    } finally {
      controller.signal.removeEventListener('abort', onAbort);
    }
    return connection;
  } catch (error) {
    socket?.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
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
