/**
 * What a stream creator (one per transport) hands the executor: the negotiated protocol
 * and its handler, the data streams the RPC asked for, resize and stdin half-close as the
 * protocol allows, and one promise for how it all ended.
 */
import type { Readable, Writable } from 'node:stream';
import type { AppError } from '../../../../../shared/errors';
import type { Disposable } from '../../../../../shared/lifecycle';
import type { Dialer } from '../dial';
import type { StreamTlsOptions } from '../websocket';
import type { ProtocolHandler, TransportKind } from './handlers';

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

export interface OpenStreamsOptions {
  readonly url: string;
  readonly flags: StreamFlags;
  readonly dialer?: Dialer;
  readonly tls?: StreamTlsOptions;
  /** Bound on upgrade plus stream setup. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** How the remote side ended: everything the error channel carried, and any transport failure. */
export interface StreamsEnd {
  readonly errorData: Buffer;
  /** Set when the connection failed (dropped, protocol violation) rather than ending normally. */
  readonly failure?: AppError;
  /** True when we closed it (dispose) before the server ended it. */
  readonly local: boolean;
}

export interface RemoteStreams extends Disposable {
  readonly transport: TransportKind;
  readonly protocol: string;
  readonly handler: ProtocolHandler;
  readonly stdin?: Writable;
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  readonly canResize: boolean;
  readonly canCloseStdin: boolean;
  /** Sends one terminal size; only called when `canResize`. */
  sendResize(size: TerminalSize): void;
  /** Half-closes stdin; throws an AppError when the protocol cannot. */
  closeStdin(): void;
  /** Settles once (never rejects), with bounded waits after the server's last word. */
  readonly ended: Promise<StreamsEnd>;
}

export interface StreamCreator {
  readonly transport: TransportKind;
  /** Offered in this order; the server picks the first it supports. */
  readonly protocols: readonly string[];
  open(options: OpenStreamsOptions): Promise<RemoteStreams>;
}
