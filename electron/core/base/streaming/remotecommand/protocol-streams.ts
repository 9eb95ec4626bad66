/**
 * The streams a protocol handler opened for one session, whatever the transport: resize and
 * stdin half-close as the handler decided, and the status read from the error stream.
 */
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../../../../../shared/errors';
import type { ProtocolHandler } from './handlers';
import { MAX_STATUS_BYTES, type CommandStatus } from './status';
import type { InputEnd, RemoteStreams, StreamConnection, TerminalSize } from './streams';

/** How the error stream ended: everything it carried, and why the connection ended. */
export interface ErrorStreamEnd {
  readonly errorData: Buffer;
  /** Set when the connection failed (dropped, protocol violation) rather than ending normally. */
  readonly failure?: AppError;
  /** True when we closed the streams before the server ended them. */
  readonly local: boolean;
}

export interface OpenedStreams {
  readonly error: Readable;
  readonly stdin?: Writable;
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  readonly resize?: Writable;
  /** What ending stdin does (the handler's decision). */
  readonly inputEnd: InputEnd;
}

/** After the status arrived, the server's close follows at once; bound the wait for it. */
const settleAfterStatusMs = 2000;
/** The error stream or the connection ended without the other: how long to wait for it. */
const settleAfterCloseMs = 1000;

export class ProtocolStreams implements RemoteStreams {
  readonly stdin?: Writable;
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  readonly canResize: boolean;
  readonly canCloseStdin: boolean;
  readonly status: Promise<CommandStatus>;
  private readonly resize: Writable | undefined;
  private readonly inputEnd: InputEnd;
  private disposed = false;

  constructor(
    private readonly handler: ProtocolHandler,
    private readonly connection: StreamConnection,
    streams: OpenedStreams,
  ) {
    if (streams.stdin !== undefined) this.stdin = streams.stdin;
    if (streams.stdout !== undefined) this.stdout = streams.stdout;
    if (streams.stderr !== undefined) this.stderr = streams.stderr;
    this.resize = streams.resize;
    this.inputEnd = streams.inputEnd;
    this.canResize = streams.resize !== undefined;
    this.canCloseStdin = streams.stdin !== undefined && streams.inputEnd.kind === 'half-close';
    this.status = readErrorStream(streams.error, connection, () => this.disposed).then((end) =>
      handler.outcome(end),
    );
    // Streams disposed before anyone asked (an attempt that can't serve the session).
    this.status.catch(() => undefined);
  }

  get transport(): StreamConnection['transport'] {
    return this.connection.transport;
  }

  get protocol(): string {
    return this.connection.protocol;
  }

  sendResize(size: TerminalSize): void {
    if (this.resize !== undefined) this.handler.writeResize(this.resize, size);
  }

  closeStdin(): void {
    if (this.stdin === undefined) {
      throw new AppError({ code: 'failed-precondition', message: 'This session has no stdin.' });
    }
    if (this.inputEnd.kind === 'refuse') throw this.inputEnd.error;
    this.stdin.end();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.connection.dispose();
  }
}

/**
 * Collects the error stream until the server's last word. The server writes the status
 * (SPDY: without FIN, then resets the stream; WebSocket: then closes the socket) and ends the
 * connection, in an order that depends on the transport, so: finish once both the stream
 * and the connection are over, or soon after either when the other lags. Never rejects.
 */
function readErrorStream(
  stream: Readable,
  connection: StreamConnection,
  disposed: () => boolean,
): Promise<ErrorStreamEnd> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failure: AppError | undefined;
    let connectionClosed = false;
    let streamEnded = false;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      resolve({
        errorData: Buffer.concat(chunks),
        local: disposed() && chunks.length === 0,
        ...(failure !== undefined && { failure }),
      });
    };
    const finishWithin = (ms: number): void => {
      if (done) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(finish, ms);
    };
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > MAX_STATUS_BYTES) {
        failure ??= new AppError({
          code: 'protocol-error',
          message: 'The stream server sent more than a status on the error stream.',
          detail: `over ${MAX_STATUS_BYTES} bytes`,
        });
        connection.abort(failure);
        finish();
        return;
      }
      chunks.push(chunk);
      // The status is the server's last word; a server that never closes after it must
      // not hold the session open.
      if (timer === undefined) finishWithin(settleAfterStatusMs);
    });
    const onStreamEnd = (): void => {
      if (streamEnded) return;
      streamEnded = true;
      // With a status in hand the outcome is known; without one, give the connection a
      // moment to say why it ended (a dropped connection reads differently from v1's silence).
      if (chunks.length > 0 || connectionClosed) finish();
      else finishWithin(settleAfterCloseMs);
    };
    stream.once('end', onStreamEnd);
    stream.once('close', onStreamEnd);
    void connection.closed.then((closed) => {
      connectionClosed = true;
      if (closed.failure !== undefined && !disposed()) failure ??= closed.failure;
      if (streamEnded || disposed()) finish();
      else finishWithin(settleAfterCloseMs);
    });
  });
}
