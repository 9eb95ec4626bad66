/**
 * The SPDY stream creator: one SPDY stream per channel, named by the `streamtype` header.
 * The server counts replies, so exactly the streams the RPC flags imply are opened: error,
 * then stdin/stdout/stderr as requested, then resize only with tty on v3+. Streams are
 * created one after another (ids must arrive in increasing order), and data flows only
 * once every stream is acknowledged. stdin EOF is a FIN, on every version.
 */
import type { Duplex, Readable } from 'node:stream';
import { AppError, isAppError } from '../../../../../shared/errors';
import type { Disposable } from '../../../../../shared/lifecycle';
import type { Dialer } from '../dial';
import type { StreamTlsOptions } from '../websocket';
import { handlerFor, offeredProtocols, type ProtocolHandler } from './handlers';
import { MAX_STATUS_BYTES } from './status';
import type {
  OpenStreamsOptions,
  RemoteStreams,
  StreamCreator,
  StreamsEnd,
  TerminalSize,
} from './streams';

/**
 * The part of the SPDY session layer (../spdy) this creator relies on, so it can be
 * exercised with any conforming session.
 */
export interface SpdySessionLike extends Disposable {
  readonly protocol: string;
  createStream(
    headers: Record<string, string>,
    options?: { fin?: boolean; timeoutMs?: number },
  ): Promise<Duplex>;
  onDidClose(listener: (error?: AppError) => void): Disposable;
}

export interface SpdyUpgradeOptions {
  url: string;
  protocols: readonly string[];
  dialer?: Dialer;
  tls?: StreamTlsOptions;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type SpdyUpgrade = (options: SpdyUpgradeOptions) => Promise<SpdySessionLike>;

/** After the status arrived (or the error stream ended), the rest follows at once; bound it. */
const settleAfterStatusMs = 2000;
const settleAfterCloseMs = 1000;

function swallow(): void {
  // Stream errors also surface through the session result; this keeps an unobserved one
  // from crashing the process.
}

type StreamType = 'error' | 'stdin' | 'stdout' | 'stderr' | 'resize';

class SpdyStreams implements RemoteStreams {
  readonly transport = 'spdy' as const;
  readonly protocol: string;
  readonly canResize: boolean;
  readonly canCloseStdin: boolean;
  readonly ended: Promise<StreamsEnd>;
  private disposed = false;

  constructor(
    private readonly session: SpdySessionLike,
    readonly handler: ProtocolHandler,
    private readonly errorStream: Duplex,
    readonly stdin: Duplex | undefined,
    readonly stdout: Readable | undefined,
    readonly stderr: Readable | undefined,
    private readonly resizeStream: Duplex | undefined,
  ) {
    this.protocol = session.protocol;
    // The server never writes on stdin or resize, but their readable sides still end (RST
    // at teardown); keep them flowing so the session never waits on an unread stream.
    stdin?.resume();
    resizeStream?.resume();
    this.canResize = resizeStream !== undefined;
    this.canCloseStdin = stdin !== undefined;
    this.ended = this.collect();
  }

  sendResize(size: TerminalSize): void {
    this.resizeStream?.write(JSON.stringify({ Width: size.cols, Height: size.rows }));
  }

  closeStdin(): void {
    if (this.stdin === undefined) {
      throw new AppError({ code: 'failed-precondition', message: 'This session has no stdin.' });
    }
    this.stdin.end();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.session.dispose();
  }

  /**
   * The server writes the status on the error stream without FIN, then resets the streams
   * and closes the session: collect until the stream ends or closes, and learn from the
   * session whether the connection failed.
   */
  private collect(): Promise<StreamsEnd> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let failure: AppError | undefined;
      let sessionClosed = false;
      let errorEnded = false;
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        if (timer !== undefined) clearTimeout(timer);
        closeListener.dispose();
        resolve({
          errorData: Buffer.concat(chunks),
          local: this.disposed && chunks.length === 0,
          ...(failure !== undefined && { failure }),
        });
      };
      const finishWithin = (ms: number): void => {
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(finish, ms);
      };
      this.errorStream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_STATUS_BYTES) {
          failure ??= new AppError({
            code: 'protocol-error',
            message: 'The stream server sent more than a status on the error stream.',
            detail: `over ${MAX_STATUS_BYTES} bytes`,
          });
          this.session.dispose();
          finish();
          return;
        }
        chunks.push(chunk);
        if (timer === undefined) finishWithin(settleAfterStatusMs);
      });
      const onErrorEnd = (): void => {
        if (errorEnded) return;
        errorEnded = true;
        // With a status in hand the outcome is known; without one, give the session a
        // moment to say why it ended (a dropped connection reads differently from v1's silence).
        if (chunks.length > 0 || sessionClosed) finish();
        else finishWithin(settleAfterCloseMs);
      };
      this.errorStream.once('end', onErrorEnd);
      this.errorStream.once('close', onErrorEnd);
      const closeListener = this.session.onDidClose((error) => {
        sessionClosed = true;
        if (error !== undefined && !this.disposed) failure ??= error;
        if (errorEnded || this.disposed) finish();
        else finishWithin(settleAfterCloseMs);
      });
    });
  }
}

function interrupted(signal: AbortSignal | undefined, timeoutMs: number, what: string): AppError {
  return signal?.aborted
    ? new AppError({ code: 'cancelled', message: 'Opening the stream was cancelled.' })
    : new AppError({
        code: 'deadline-exceeded',
        message: `The stream server did not open the ${what} stream within ${timeoutMs} ms.`,
        hint: 'The server acknowledges each stream; a silent one is overloaded or not a CRI stream server.',
      });
}

/** Awaits `promise` until `deadline` (epoch ms) or abort, whichever comes first. */
function bounded<T>(
  promise: Promise<T>,
  deadline: number,
  signal: AbortSignal | undefined,
  onTimeout: () => AppError,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(onTimeout()), Math.max(0, deadline - Date.now()));
    const onAbort = (): void => fail(onTimeout());
    const cleanup = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (error: unknown): void => {
      cleanup();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then((value) => {
      cleanup();
      resolve(value);
    }, fail);
  });
}

export function spdyStreamCreator(upgrade: SpdyUpgrade): StreamCreator {
  const protocols = offeredProtocols.spdy;
  return {
    transport: 'spdy',
    protocols,
    async open(options: OpenStreamsOptions) {
      const started = Date.now();
      const deadline = started + options.timeoutMs;
      const session = await upgrade({
        url: options.url,
        protocols,
        timeoutMs: options.timeoutMs,
        ...(options.dialer !== undefined && { dialer: options.dialer }),
        ...(options.tls !== undefined && { tls: options.tls }),
        ...(options.signal !== undefined && { signal: options.signal }),
      });
      try {
        const handler = handlerFor('spdy', session.protocol);
        const { flags } = options;
        const create = async (type: StreamType): Promise<Duplex> => {
          const stream = await bounded(
            session.createStream(
              { streamtype: type },
              { timeoutMs: Math.max(1, deadline - Date.now()) },
            ),
            deadline,
            options.signal,
            () => interrupted(options.signal, options.timeoutMs, type),
          );
          stream.on('error', swallow);
          return stream;
        };
        // One after another: stream ids must reach the server in increasing order.
        const errorStream = await create('error');
        const stdin = flags.stdin ? await create('stdin') : undefined;
        const stdout = flags.stdout ? await create('stdout') : undefined;
        const stderr = flags.stderr ? await create('stderr') : undefined;
        const resize = flags.tty && handler.supportsResize ? await create('resize') : undefined;
        return new SpdyStreams(session, handler, errorStream, stdin, stdout, stderr, resize);
      } catch (error) {
        session.dispose();
        throw isAppError(error)
          ? error
          : new AppError(
              {
                code: 'unavailable',
                message: 'Opening the SPDY streams failed.',
                detail: error instanceof Error ? error.message : String(error),
              },
              { cause: error },
            );
      }
    },
  };
}
