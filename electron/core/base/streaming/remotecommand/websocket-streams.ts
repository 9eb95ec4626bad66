/**
 * The WebSocket transport for exec/attach: one channel per stream type over one socket
 * (../websocket). WebSocket has no half-close of its own; whether stdin can end (v5's
 * CLOSE signal) is the protocol handler's to say (handlers.ts).
 */
import type { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import type { AppError } from '../../../../../shared/errors';
import {
  Channel,
  ChannelConnection,
  connectWebSocket,
  type WebSocketConnectOptions,
} from '../websocket';
import { offeredProtocols } from './handlers';
import {
  upgradeOptions,
  type ConnectionClosed,
  type InputEnd,
  type InputStreamType,
  type OutputStreamType,
  type StreamConnection,
  type StreamTransport,
  type StreamType,
} from './streams';

export type WebSocketConnect = (options: WebSocketConnectOptions) => Promise<WebSocket>;

const channels: Readonly<Record<StreamType, number>> = {
  stdin: Channel.stdin,
  stdout: Channel.stdout,
  stderr: Channel.stderr,
  error: Channel.error,
  resize: Channel.resize,
};

class WebSocketStreamConnection implements StreamConnection {
  readonly transport = 'websocket' as const;
  /** Only v5's CLOSE message can end a channel. */
  readonly halfClose = 'signal' as const;
  readonly closed: Promise<ConnectionClosed>;

  constructor(private readonly connection: ChannelConnection) {
    this.closed = connection.closed.then((end) => ({
      local: end.local,
      ...(end.error !== undefined && { failure: end.error }),
    }));
  }

  get protocol(): string {
    return this.connection.protocol;
  }

  openOutput(type: OutputStreamType): Promise<Readable> {
    return Promise.resolve(this.connection.readable(channels[type]));
  }

  openInput(type: InputStreamType, end: InputEnd): Promise<Writable> {
    const channel = channels[type];
    return Promise.resolve(
      this.connection.writable(channel, {
        final: (callback) =>
          end.kind === 'half-close'
            ? this.connection.sendClose(channel, callback)
            : callback(end.error),
      }),
    );
  }

  start(): void {
    this.connection.start();
  }

  abort(error: AppError): void {
    this.connection.abort(error);
  }

  dispose(): void {
    this.connection.dispose();
  }
}

export function websocketTransport(connect: WebSocketConnect = connectWebSocket): StreamTransport {
  const protocols = offeredProtocols.websocket;
  return {
    transport: 'websocket',
    protocols,
    async connect(options) {
      const ws = await connect(upgradeOptions(options, protocols));
      return new WebSocketStreamConnection(new ChannelConnection(ws));
    },
  };
}
