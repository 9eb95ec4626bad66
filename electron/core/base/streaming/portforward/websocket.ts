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
import type { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import { AppError } from '../../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../../shared/lifecycle';
import type { Dialer, StreamTlsOptions } from '../dial';
import { ChannelConnection, connectWebSocket } from '../websocket';
import { collectText } from './text';
import type { PortForwardTransport, RemoteConnection, StreamUrlRequest } from './types';

export const WEBSOCKET_PORT_FORWARD_PROTOCOLS: readonly string[] = [
  'v4.channel.k8s.io',
  'v4.base64.channel.k8s.io',
];

export const DEFAULT_WEBSOCKET_UPGRADE_TIMEOUT_MS = 10_000;
/** The runtime sends at most 32 KiB per message (its copy buffer); anything huge is hostile. */
const MAX_PAYLOAD = 32 * 1024 * 1024 + 1;
const READABLE_HIGH_WATER_MARK = 256 * 1024;
/** One port per socket: its data and error channels (port i would be 2i and 2i+1). */
const DATA_CHANNEL = 0;
const ERROR_CHANNEL = 1;

function malformed(message: string, detail?: string): AppError {
  return new AppError({
    code: 'protocol-error',
    message: `The runtime broke the port-forward protocol: ${message}`,
    ...(detail !== undefined && { detail }),
  });
}

/**
 * One local connection's WebSocket: the data channel as `readable` and `writable`, the
 * runtime's error text from the error channel. Flow control is the ChannelConnection's: a
 * full readable pauses the socket (TCP pushes back on the runtime); writes complete once
 * ws handed them to the socket.
 */
export class WebSocketRemoteConnection implements RemoteConnection {
  readonly canHalfClose = false;
  readonly readable: Readable;
  /** No half-close in v4: ending it sends nothing (the bridge closes the socket). */
  readonly writable: Writable;
  readonly errorText: Promise<string>;
  private readonly channels: ChannelConnection;

  constructor(
    ws: WebSocket,
    readonly remotePort: number,
  ) {
    this.channels = new ChannelConnection(ws, {
      highWaterMark: READABLE_HIGH_WATER_MARK,
      // Each channel starts with the port it carries (uint16, little endian).
      preamble: (channel, payload) => {
        if (payload.length < 2 || payload.readUInt16LE(0) !== remotePort) {
          throw malformed(
            `the first message of channel ${channel} does not name port ${remotePort}.`,
            `got ${payload.subarray(0, 8).toString('hex')}`,
          );
        }
        return payload.subarray(2);
      },
      errors: {
        framing: (detail) => malformed('invalid WebSocket framing.', detail),
        lost: (detail) =>
          new AppError({
            code: 'connection-lost',
            message: 'The WebSocket to the runtime closed unexpectedly.',
            detail,
          }),
      },
    });
    this.readable = this.channels.readable(DATA_CHANNEL);
    this.errorText = collectText(this.channels.readable(ERROR_CHANNEL));
    this.writable = this.channels.writable(DATA_CHANNEL);
    this.channels.start();
  }

  get protocol(): string {
    return this.channels.protocol;
  }

  /** Called once when the socket is gone. */
  onDidClose(listener: () => void): Disposable {
    let live = true;
    void this.channels.closed.then(() => {
      if (live) listener();
    });
    return toDisposable(() => (live = false));
  }

  close(): void {
    // Both directions are done or being abandoned, and every write's callback has fired
    // (the data is in the socket): no close handshake to wait for.
    this.channels.terminate();
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
