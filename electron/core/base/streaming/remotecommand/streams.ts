/**
 * The seams of exec/attach, as in client-go's remotecommand: a transport (SPDY or
 * WebSocket) upgrades a stream URL to a `StreamConnection`, which does one thing: create
 * the stream of a given type (SPDY by its `streamtype` header, WebSocket by its channel).
 * Which streams exist, how resize and the status are sent and read, and what ending stdin
 * means are the protocol version's, in handlers.ts; what the handler opened is the
 * session's `RemoteStreams`.
 */
import type { Readable, Writable } from 'node:stream';
import type { AppError } from '../../../../../shared/errors';
import type { Disposable } from '../../../../../shared/lifecycle';
import type { Dialer, StreamTlsOptions } from '../dial';
import type { UpgradeOptions } from '../upgrade';
import type { TransportKind } from './handlers';
import type { CommandStatus } from './status';

/** The stream flags of the Exec/Attach request: the server expects exactly these. */
export interface StreamFlags {
  readonly tty: boolean;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
}

export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

/** Streams this side writes. */
export type InputStreamType = 'stdin' | 'resize';
/** Streams the server writes. */
export type OutputStreamType = 'error' | 'stdout' | 'stderr';
export type StreamType = InputStreamType | OutputStreamType;

/**
 * What ending an input stream's write side does, as the handler decides it: `half-close`
 * reaches the server as EOF (whatever way the transport has: SPDY FIN, WebSocket's v5
 * CLOSE); `refuse` means the protocol has no way, and `end()` fails with the error.
 */
export type InputEnd =
  { readonly kind: 'half-close' } | { readonly kind: 'refuse'; readonly error: AppError };

/** How a connection ended. */
export interface ConnectionClosed {
  /** True when we closed it (dispose) before the server did. */
  readonly local: boolean;
  /** Set when it failed (dropped, protocol violation) rather than ending normally. */
  readonly failure?: AppError;
}

/** An upgraded stream URL, as the protocol handlers use it. */
export interface StreamConnection extends Disposable {
  readonly transport: TransportKind;
  /** The protocol the server chose ('' when it named none). */
  readonly protocol: string;
  /**
   * How the transport can end one stream: `frame` with its own framing, on any protocol
   * version (SPDY's FIN); `signal` only by a message of the protocol (WebSocket, where
   * just v5 has one: CLOSE).
   */
  readonly halfClose: 'frame' | 'signal';
  /**
   * Open the stream of one type, resolving once the server has it: one the server writes,
   * or one we write, ending as `end` says. Called one after another (SPDY stream ids must
   * reach the server in increasing order).
   */
  openOutput(type: OutputStreamType): Promise<Readable>;
  openInput(type: InputStreamType, end: InputEnd): Promise<Writable>;
  /** Every stream is open: let data flow. */
  start(): void;
  /** Settles once (never rejects), when the connection is over. */
  readonly closed: Promise<ConnectionClosed>;
  /** Fails the connection with `error` (a violation the handler found) and closes it. */
  abort(error: AppError): void;
}

export interface ConnectOptions {
  readonly url: string;
  readonly dialer?: Dialer;
  readonly tls?: StreamTlsOptions;
  /** Bound on upgrade plus stream setup. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** What a transport's upgrade is asked to do. */
export function upgradeOptions(
  options: ConnectOptions,
  protocols: readonly string[],
): UpgradeOptions {
  return {
    url: options.url,
    protocols,
    timeoutMs: options.timeoutMs,
    ...(options.dialer !== undefined && { dialer: options.dialer }),
    ...(options.tls !== undefined && { tls: options.tls }),
    ...(options.signal !== undefined && { signal: options.signal }),
  };
}

/** One per transport: upgrades a stream URL, offering `protocols`. */
export interface StreamTransport {
  readonly transport: TransportKind;
  /** Offered in this order; the server picks the first it supports. */
  readonly protocols: readonly string[];
  connect(options: ConnectOptions): Promise<StreamConnection>;
}

/** The streams a handler opened for one session. */
export interface RemoteStreams extends Disposable {
  readonly transport: TransportKind;
  readonly protocol: string;
  readonly stdin?: Writable;
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  readonly canResize: boolean;
  readonly canCloseStdin: boolean;
  /** Sends one terminal size; does nothing without `canResize`. */
  sendResize(size: TerminalSize): void;
  /** Half-closes stdin; throws an AppError when the protocol cannot. */
  closeStdin(): void;
  /**
   * The command's status as the protocol version reads it, once the server gave its last
   * word (bounded waits). Rejects with an AppError: the connection failed, the status was
   * garbage or missing (v4+), or we closed the streams first ('cancelled').
   */
  readonly status: Promise<CommandStatus>;
}
