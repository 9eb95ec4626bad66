/**
 * Splices one accepted local TCP connection to one remote connection into the pod.
 *
 * Flow control both ways: a write that the other side can't take yet pauses the source
 * until 'drain', so at most a high-water mark is buffered per direction (a slow local reader
 * pauses the SPDY session's socket, see ../spdy/stream.ts; a slow pod pauses the local
 * socket, and TCP pushes back on the client).
 *
 * Half-close: the client's EOF becomes a FIN on the data stream (SPDY); the pod's EOF ends
 * the local socket. The runtime gives the other direction 1 s after a FIN, then closes.
 * WebSocket v4 can't carry EOF: after the client's EOF (and our last write) the pod gets the
 * same 1 s to answer, then the socket is closed.
 *
 * Failures: text on the runtime's error channel, or a broken stream, reset the local
 * socket (the client sees ECONNRESET rather than a clean, misleading EOF) and are reported
 * in `done`. A client that resets or vanishes is a normal end, not a failure.
 */
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { AppError, isAppError } from '../../../../../shared/errors';
import type { Disposable } from '../../../../../shared/lifecycle';
import { remoteConnectionError } from './errors';
import type { RemoteConnection } from './types';

export interface BridgeObserver {
  /** Bytes from the pod, as they are written to the local socket. */
  onBytesIn?(count: number): void;
  /** Bytes from the client, as they are written to the pod. */
  onBytesOut?(count: number): void;
}

export interface BridgeEnd {
  /** Set when the connection failed (the runtime refused it, or a stream broke). */
  readonly error?: AppError;
}

export interface BridgeOptions {
  /** How long the pod may keep answering after the client's EOF, when EOF can't be sent. */
  readonly halfCloseGraceMs?: number;
  /** How long to wait for the error channel after the data stream ended, before a clean EOF. */
  readonly errorSettleMs?: number;
}

const DEFAULT_HALF_CLOSE_GRACE_MS = 1000;
const DEFAULT_ERROR_SETTLE_MS = 250;

function asAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  return new AppError(
    {
      code: 'connection-lost',
      message: 'The stream to the pod broke.',
      detail: error instanceof Error ? error.message : String(error),
    },
    { cause: error },
  );
}

export class Bridge implements Disposable {
  readonly done: Promise<BridgeEnd>;
  private resolveDone!: (end: BridgeEnd) => void;
  private finished = false;
  private failure: AppError | undefined;
  private remoteFailing = false;
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.local.uncork();
  };
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly local: Socket,
    private readonly remote: RemoteConnection,
    private readonly observer: BridgeObserver = {},
    private readonly options: BridgeOptions = {},
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.pump();
  }

  /** Ends the connection now (the forward is stopping): no error is reported. */
  dispose(): void {
    if (this.finished) return;
    this.local.destroy();
    this.finish();
  }

  private pump(): void {
    const { local, remote, observer } = this;
    const { readable, writable } = remote;

    // client → pod
    this.listen(local, 'data', (chunk: Buffer) => {
      observer.onBytesOut?.(chunk.length);
      if (!writable.write(chunk)) local.pause();
    });
    this.listen(writable, 'drain', () => local.resume());
    this.listen(local, 'end', () => this.onLocalEnd(writable));

    // pod → client. One socket read of the session carries several DATA frames, each
    // emitted on its own: cork until the end of the tick so they leave in one writev.
    this.listen(readable, 'data', (chunk: Buffer) => {
      observer.onBytesIn?.(chunk.length);
      if (!this.corked) {
        this.corked = true;
        local.cork();
        process.nextTick(this.uncork);
      }
      if (!local.write(chunk)) readable.pause();
    });
    this.listen(local, 'drain', () => readable.resume());
    this.listen(readable, 'end', () => this.onRemoteEnd());

    this.listen(readable, 'error', (error: Error) => this.failRemote(asAppError(error)));
    if ((writable as unknown) !== readable) {
      this.listen(writable, 'error', (error: Error) => this.failRemote(asAppError(error)));
    }
    // The client went away (reset, or closed both ways): a normal end for the forward.
    this.listen(local, 'error', () => this.dispose());
    this.listen(local, 'close', () => this.finish());

    remote.errorText.then(
      (text) => {
        if (text !== '') this.fail(remoteConnectionError(text, remote.remotePort));
      },
      () => undefined,
    );
    // Accepted sockets start paused (pauseOnConnect): now there is somewhere to send to.
    local.resume();
  }

  private onLocalEnd(writable: Writable): void {
    if (this.finished) return;
    if (this.remote.canHalfClose) {
      writable.end();
      return;
    }
    // No EOF on the wire: once our last byte is out, give the pod a moment to answer.
    writable.end(() => {
      if (this.finished) return;
      this.after(this.options.halfCloseGraceMs ?? DEFAULT_HALF_CLOSE_GRACE_MS, () => {
        // Stop the pod's side, flush what it sent, and let the socket close: the client
        // already sent EOF, so our EOF completes it ('close' then finishes the bridge).
        this.remote.close();
        if (!this.local.writableEnded) this.local.end();
      });
    });
  }

  private onRemoteEnd(): void {
    if (this.finished) return;
    // The runtime writes its error text before it closes the data stream, but the two are
    // separate streams: give the error channel a moment to settle before a clean EOF.
    let settled = false;
    const proceed = (): void => {
      if (settled || this.finished) return;
      settled = true;
      // Once the client has sent its EOF too, the socket closes and 'close' finishes us.
      if (!this.local.writableEnded) this.local.end();
    };
    this.after(this.options.errorSettleMs ?? DEFAULT_ERROR_SETTLE_MS, proceed);
    this.remote.errorText.then(
      (text) => {
        if (text === '') proceed();
      },
      () => undefined,
    );
  }

  /**
   * The remote side broke. When the runtime refused the connection, its reason is on the
   * error channel, racing the broken stream (e.g. our write hit the closed socket first):
   * wait a moment for the text, which says far more than "connection lost".
   */
  private failRemote(error: AppError): void {
    if (this.finished || this.remoteFailing) return;
    this.remoteFailing = true;
    let decided = false;
    const decide = (text: string): void => {
      if (decided) return;
      decided = true;
      this.fail(text !== '' ? remoteConnectionError(text, this.remote.remotePort) : error);
    };
    this.after(this.options.errorSettleMs ?? DEFAULT_ERROR_SETTLE_MS, () => decide(''));
    this.remote.errorText.then(decide, () => decide(''));
  }

  private fail(error: AppError): void {
    if (this.finished) return;
    this.failure ??= error;
    // RST to the client: the connection did not end well, and it should know.
    if (!this.local.destroyed) this.local.resetAndDestroy();
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    // Late errors on either side mean nothing now, but must not go unhandled.
    this.local.on('error', () => undefined);
    this.remote.close();
    if (!this.local.destroyed) this.local.destroy();
    this.resolveDone(this.failure !== undefined ? { error: this.failure } : {});
  }

  private after(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  private listen<A extends unknown[]>(
    emitter: NodeJS.EventEmitter,
    event: string,
    listener: (...args: A) => void,
  ): void {
    const wrapped = listener as (...args: unknown[]) => void;
    emitter.on(event, wrapped);
    this.cleanups.push(() => emitter.off(event, wrapped));
  }
}
