import type { Readable, Writable } from 'node:stream';
import type { AppError } from '../../../../../shared/errors';
import type { Disposable } from '../../../../../shared/lifecycle';
import type { ForwardTransportKind } from '../../../../../shared/model';
import type { StreamUrl } from '../../cri';

/** One TCP connection to a port inside the pod, carried by the runtime's stream server. */
export interface RemoteConnection {
  readonly remotePort: number;
  /** Bytes from the pod. Ends when the pod's side is done; errors when the stream broke. */
  readonly readable: Readable;
  /** Bytes to the pod (backpressured by the transport's socket). */
  readonly writable: Writable;
  /**
   * Whether ending `writable` reaches the pod as EOF. SPDY: yes (FIN). WebSocket v4: no, the
   * protocol has no half-close; the connection can only be closed as a whole.
   */
  readonly canHalfClose: boolean;
  /**
   * The runtime's own words when it could not serve this connection (e.g. "failed to connect
   * to localhost:8080 inside namespace …"), or '' when it said nothing. Settles once the
   * connection's error channel is over; never rejects.
   */
  readonly errorText: Promise<string>;
  /** Tears the connection down on the wire (reset / close). Idempotent. */
  close(): void;
}

/**
 * Opens connections into one pod. SPDY: one session, a stream pair per connection.
 * WebSocket: a new RPC and socket per connection (the runtime dials at upgrade time).
 */
export interface PortForwardTransport extends Disposable {
  readonly kind: ForwardTransportKind;
  /** The negotiated protocol (for WebSocket, the one offered first until a socket says otherwise). */
  readonly protocol: string;
  /** True once the transport can open no more connections (its session is over). */
  readonly closed: boolean;
  open(remotePort: number): Promise<RemoteConnection>;
  /**
   * Called once when the transport can open no more connections: the SPDY session ended
   * (no error after a normal close). A WebSocket transport only "closes" when disposed.
   */
  onDidClose(listener: (error?: AppError) => void): Disposable;
}

/** Calls the CRI PortForward RPC for the forward's sandbox: a fresh single-use URL. */
export type StreamUrlRequest = (
  ports: readonly number[],
  signal?: AbortSignal,
) => Promise<StreamUrl>;
