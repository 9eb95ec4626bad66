import {
  Client,
  Metadata,
  connectivityState,
  credentials,
  type ChannelOptions,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { AppError } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import { toCriError } from './errors';
import type { UnixEndpoint } from './endpoint';

/**
 * The part of a generated method definition a call needs. Declared with method syntax so
 * that every concrete definition, whatever its message types, is assignable to it.
 */
export interface AnyMethod {
  readonly path: string;
  requestSerialize(this: void, value: never): Buffer;
  responseDeserialize(this: void, bytes: Buffer): unknown;
}

export type RequestOf<M extends AnyMethod> = Parameters<M['requestSerialize']>[0];
export type ResponseOf<M extends AnyMethod> = ReturnType<M['responseDeserialize']>;

export interface CallOptions {
  /** Overrides the channel's default deadline for this call. */
  readonly timeoutMs?: number;
  /** Aborting cancels the call; it then rejects with an AppError of code `cancelled`. */
  readonly signal?: AbortSignal;
}

export interface StreamObserver<T> {
  next(message: T): void;
  /** Called once, when the stream fails; not after dispose(). */
  error(error: AppError): void;
  /** Called once, when the server ends the stream normally. */
  complete(): void;
}

const channelOptions: ChannelOptions = {
  // Runtimes send up to 16 MiB (containerd's own limit); large nodes list that much.
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc.max_send_message_length': 16 * 1024 * 1024,
  // grpc-js waits up to 2 minutes between reconnects by default, and fails every call
  // meanwhile ("No connection established"), long after a restarted runtime is back. A
  // local socket costs nothing to dial: keep the gaps short.
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 5000,
};

type LiveCall = { cancel(): void };

/**
 * One gRPC connection to one unix socket, shared by every call to that endpoint. Every
 * unary call gets a deadline; every call and stream is cancelled on dispose, so a
 * disposed client leaves no handle behind and the process can exit. `reconnect()` swaps
 * the connection for a new one (a runtime that restarted is dialled afresh), and
 * `onDidDrop` tells when an established connection closed.
 */
export class CriChannel implements Disposable {
  private client: Client;
  private readonly live = new Set<LiveCall>();
  /** Calls cut off by reconnect(): they fail as a reset connection, not as "cancelled". */
  private readonly cutOff = new WeakSet<LiveCall>();
  private readonly dropListeners = new Set<() => void>();
  private disposed = false;

  constructor(
    readonly endpoint: UnixEndpoint,
    readonly defaultTimeoutMs: number,
  ) {
    this.client = this.open();
  }

  /**
   * Closes the gRPC connection and opens a new one: calls and streams under way fail
   * (`unavailable`), the next call dials the socket at once, whatever grpc-js's own
   * reconnect backoff says.
   */
  reconnect(): void {
    if (this.disposed) return;
    const previous = this.client;
    const calls = [...this.live];
    this.live.clear();
    this.client = this.open();
    for (const call of calls) {
      this.cutOff.add(call);
      call.cancel();
    }
    previous.close();
  }

  /**
   * Calls `listener` each time an established connection to the runtime closes (the
   * runtime stopped or restarted, or the socket went away), not when we close it.
   */
  onDidDrop(listener: () => void): Disposable {
    this.dropListeners.add(listener);
    return toDisposable(() => this.dropListeners.delete(listener));
  }

  private open(): Client {
    const client = new Client(this.endpoint.uri, credentials.createInsecure(), channelOptions);
    this.watchDrops(client);
    return client;
  }

  /** Follows the channel's connectivity: READY to anything else is a drop. */
  private watchDrops(client: Client): void {
    const channel = client.getChannel();
    const watch = (): void => {
      const current = channel.getConnectivityState(false);
      if (current === connectivityState.SHUTDOWN) return;
      channel.watchConnectivityState(current, Infinity, () => {
        const next = channel.getConnectivityState(false);
        if (next === connectivityState.SHUTDOWN || this.client !== client) return;
        if (current === connectivityState.READY && next !== connectivityState.READY) {
          for (const listener of [...this.dropListeners]) listener();
        }
        watch();
      });
    };
    watch();
  }

  unary<M extends AnyMethod>(
    method: M,
    name: string,
    request: RequestOf<M>,
    options: CallOptions = {},
  ): Promise<ResponseOf<M>> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const context = { socketPath: this.endpoint.path, method: name, timeoutMs };
    if (this.disposed) return Promise.reject(this.closedError(name));
    if (options.signal?.aborted) return Promise.reject(toCriError(cancelledError(), context));

    const startedAt = Date.now();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => call.cancel();
      const call = this.client.makeUnaryRequest<RequestOf<M>, ResponseOf<M>>(
        method.path,
        method.requestSerialize as (value: RequestOf<M>) => Buffer,
        method.responseDeserialize as (bytes: Buffer) => ResponseOf<M>,
        request,
        new Metadata(),
        { deadline: Date.now() + timeoutMs },
        (error: ServiceError | null, response?: ResponseOf<M>) => {
          this.live.delete(call);
          options.signal?.removeEventListener('abort', onAbort);
          if (error) {
            const elapsedMs = Date.now() - startedAt;
            const aborted = options.signal?.aborted === true;
            reject(
              this.disposed
                ? this.closedError(name)
                : this.cutOff.has(call)
                  ? this.resetError(name)
                  : toCriError(error, { ...context, elapsedMs, aborted }),
            );
          } else {
            resolve(response as ResponseOf<M>);
          }
        },
      );
      this.live.add(call);
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A server stream with no deadline; dispose the result to cancel it. */
  serverStream<M extends AnyMethod>(
    method: M,
    name: string,
    request: RequestOf<M>,
    observer: StreamObserver<ResponseOf<M>>,
  ): Disposable {
    if (this.disposed) {
      queueMicrotask(() => observer.error(this.closedError(name)));
      return { dispose() {} };
    }
    const context = { socketPath: this.endpoint.path, method: name, timeoutMs: 0 };
    const stream: ClientReadableStream<ResponseOf<M>> = this.client.makeServerStreamRequest(
      method.path,
      method.requestSerialize as (value: RequestOf<M>) => Buffer,
      method.responseDeserialize as (bytes: Buffer) => ResponseOf<M>,
      request,
      new Metadata(),
      {},
    );
    let finished = false;
    const finish = (): void => {
      finished = true;
      this.live.delete(stream);
    };
    stream.on('data', (message: ResponseOf<M>) => {
      if (!finished) observer.next(message);
    });
    stream.on('error', (error: ServiceError) => {
      if (finished) return;
      finish();
      observer.error(this.cutOff.has(stream) ? this.resetError(name) : toCriError(error, context));
    });
    stream.on('end', () => {
      if (finished) return;
      finish();
      observer.complete();
    });
    this.live.add(stream);
    return {
      dispose: () => {
        if (finished) return;
        finish();
        stream.cancel();
      },
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.dropListeners.clear();
    for (const call of this.live) call.cancel();
    this.live.clear();
    this.client.close();
  }

  private resetError(method: string): AppError {
    return new AppError({
      code: 'unavailable',
      message: `${method} was cut off: Porthole reconnected to ${this.endpoint.path}.`,
      hint: 'Try again: the new connection is in place.',
    });
  }

  private closedError(method: string): AppError {
    return new AppError({
      code: 'cancelled',
      message: `${method} was cancelled: the connection to ${this.endpoint.path} was closed.`,
    });
  }
}

function cancelledError(): ServiceError {
  return Object.assign(new Error('Cancelled before start'), {
    code: 1,
    details: 'Cancelled before start',
    metadata: new Metadata(),
  });
}
