/**
 * The WebSocket stream creator: channels 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize
 * over one socket. stdin EOF needs v5's CLOSE signal; before v5 the only EOF is closing
 * the socket, which loses the status, so `end()` on stdin fails with a clear error.
 */
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../../../../../shared/errors';
import type WebSocket from 'ws';
import {
  Channel,
  ChannelConnection,
  connectWebSocket,
  type WebSocketConnectOptions,
} from '../websocket';
import { handlerFor, offeredProtocols, type ProtocolHandler } from './handlers';
import { MAX_STATUS_BYTES } from './status';
import type {
  OpenStreamsOptions,
  RemoteStreams,
  StreamCreator,
  StreamsEnd,
  TerminalSize,
} from './streams';

/** After the status arrived, the server closes at once; don't wait longer than this for it. */
const closeAfterStatusMs = 2000;

export type WebSocketConnect = (options: WebSocketConnectOptions) => Promise<WebSocket>;

export function noHalfCloseError(protocol: string): AppError {
  return new AppError({
    code: 'failed-precondition',
    message: `stdin cannot be closed on this session: ${protocol} over WebSocket has no half-close.`,
    detail:
      'Only v5.channel.k8s.io can end stdin over WebSocket; ending the socket would lose the exit status.',
    hint: 'Use the SPDY transport (or a runtime that speaks WebSocket v5) when the command must see end of input.',
  });
}

class WebSocketStreams implements RemoteStreams {
  readonly transport = 'websocket' as const;
  readonly protocol: string;
  readonly stdin?: Writable;
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  readonly canResize: boolean;
  readonly canCloseStdin: boolean;
  readonly ended: Promise<StreamsEnd>;
  private readonly resizeChannel?: Writable;

  constructor(
    private readonly connection: ChannelConnection,
    readonly handler: ProtocolHandler,
    options: OpenStreamsOptions,
  ) {
    const { flags } = options;
    this.protocol = connection.protocol;
    this.canResize = flags.tty && handler.supportsResize;
    this.canCloseStdin = flags.stdin && handler.supportsCloseSignal;
    if (flags.stdout) this.stdout = connection.readable(Channel.stdout);
    if (flags.stderr) this.stderr = connection.readable(Channel.stderr);
    if (flags.stdin) {
      this.stdin = connection.writable(Channel.stdin, {
        final: (callback) =>
          handler.supportsCloseSignal
            ? connection.sendClose(Channel.stdin, callback)
            : callback(noHalfCloseError(this.protocol)),
      });
    }
    if (this.canResize) this.resizeChannel = connection.writable(Channel.resize);
    this.ended = this.collect();
  }

  sendResize(size: TerminalSize): void {
    this.resizeChannel?.write(JSON.stringify({ Width: size.cols, Height: size.rows }));
  }

  closeStdin(): void {
    if (this.stdin === undefined) {
      throw new AppError({ code: 'failed-precondition', message: 'This session has no stdin.' });
    }
    if (!this.canCloseStdin) throw noHalfCloseError(this.protocol);
    this.stdin.end();
  }

  dispose(): void {
    this.connection.dispose();
  }

  /** Reads the error channel to the end (bounded) and waits for the socket to close. */
  private async collect(): Promise<StreamsEnd> {
    const errorChannel = this.connection.readable(Channel.error);
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    errorChannel.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_STATUS_BYTES) {
        this.connection.abort(
          new AppError({
            code: 'protocol-error',
            message: 'The stream server sent more than a status on the error channel.',
            detail: `over ${MAX_STATUS_BYTES} bytes`,
          }),
        );
        return;
      }
      chunks.push(chunk);
      // The status is the server's last word: it closes right after. Bound that wait so
      // a server that never closes can't hold the session open.
      timer ??= setTimeout(() => this.connection.end(), closeAfterStatusMs);
    });
    const end = await this.connection.closed;
    if (timer !== undefined) clearTimeout(timer);
    return {
      errorData: Buffer.concat(chunks),
      local: end.local && chunks.length === 0,
      ...(end.error !== undefined && { failure: end.error }),
    };
  }
}

export function websocketStreamCreator(
  connect: WebSocketConnect = connectWebSocket,
): StreamCreator {
  const protocols = offeredProtocols.websocket;
  return {
    transport: 'websocket',
    protocols,
    async open(options) {
      const ws = await connect({
        url: options.url,
        protocols,
        timeoutMs: options.timeoutMs,
        ...(options.dialer !== undefined && { dialer: options.dialer }),
        ...(options.tls !== undefined && { tls: options.tls }),
        ...(options.signal !== undefined && { signal: options.signal }),
      });
      let handler: ProtocolHandler;
      try {
        handler = handlerFor('websocket', ws.protocol);
      } catch (error) {
        ws.terminate();
        throw error;
      }
      const { flags } = options;
      const outputs = [
        ...(flags.stdout ? [Channel.stdout] : []),
        ...(flags.stderr ? [Channel.stderr] : []),
        Channel.error,
      ];
      const connection = new ChannelConnection(ws, { outputs });
      return new WebSocketStreams(connection, handler, options);
    },
  };
}
