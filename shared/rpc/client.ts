import {
  isNotification,
  notificationMethods,
  serviceMethods,
  type NotifiedService,
  type EventArgument,
  type EventName,
  type EventPayload,
  type AbortSignalLike,
  type ServiceName,
  type Services,
} from '../contract';
import { AppError, fromAppErrorData, toAppErrorData } from '../errors';
import { Emitter } from '../event';
import { DisposableStore, toDisposable, type Disposable } from '../lifecycle';
import { checkMessage, defaultRpcLimits, type RpcLimits } from './limits';
import type { MessagePortLike } from './port';
import { parseServerMessage, type ClientMessage } from './protocol';
import { bulkBytes, receiveCredit } from './scheduler';

/** Every contract call, as the UI makes it: plain data in, a Promise out. */
export type ServicesProxy = {
  readonly [S in keyof Services]: {
    readonly [
      M in keyof Services[S] as Services[S][M] extends (...args: never[]) => Promise<unknown>
        ? M
        : never
    ]: Services[S][M] extends (...args: infer A) => infer R
      ? (...args: A) => Promise<Awaited<R>>
      : never;
  };
};

/**
 * Every contract notification (the `void` methods), as the UI sends it: nothing comes
 * back. Sent in order; dropped once the connection is gone.
 */
export type NotifyProxy = {
  readonly [S in NotifiedService]: {
    readonly [M in (typeof notificationMethods)[S][number]]: Services[S][M] extends (
      ...args: infer A
    ) => void
      ? (...args: A) => void
      : never;
  };
};

export type EventListener<E extends EventName> = (payload: EventPayload<E>) => void;

export interface RpcClient extends Disposable {
  readonly services: ServicesProxy;
  /**
   * The one-way methods. Throws an AppError when the message breaks the limits (the caller
   * splits what it sends, e.g. a long paste).
   */
  readonly notify: NotifyProxy;
  /** The same services; aborting `signal` cancels the calls made through them. */
  withSignal(signal: AbortSignalLike): ServicesProxy;
  /**
   * Starts a subscription. `onError` hears why it ended (refused, failed, or the
   * connection dropped); after that no more payloads arrive.
   */
  subscribe<E extends EventName>(
    event: E,
    argument: EventArgument<E>,
    listener: EventListener<E>,
    onError?: (error: AppError) => void,
  ): Disposable;
  /** Fires once, when the port closes or the client is disposed. */
  onDidClose(listener: () => void): Disposable;
  readonly isClosed: boolean;
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: AppError): void;
}

interface ActiveSubscription {
  next(payload: unknown): void;
  error(error: AppError): void;
}

function connectionLost(): AppError {
  return new AppError({
    code: 'connection-lost',
    message: 'The connection to the Porthole core was lost.',
    hint: 'Porthole reconnects by itself; try again in a moment.',
  });
}

/** The arguments without trailing undefineds: JSON would turn them into nulls. */
function trimmed(args: readonly unknown[]): unknown[] {
  const kept = [...args];
  while (kept.length > 0 && kept[kept.length - 1] === undefined) kept.pop();
  return kept;
}

function cancelled(): AppError {
  return new AppError({ code: 'cancelled', message: 'The request was cancelled.' });
}

export interface ClientOptions {
  /** The server's limits, checked before sending; default `defaultRpcLimits`. */
  readonly limits?: Partial<RpcLimits>;
}

/**
 * The client half of the RPC: typed proxies of every contract method, and subscriptions.
 * Calls still pending when the port closes reject with `connection-lost`; a call whose
 * signal aborts rejects with `cancelled` at once and tells the server to stop. A request
 * the server would refuse for its size or depth is refused here, before it is sent, with
 * the same error; so is one the port can't send (it throws an AppError).
 */
export function createClient(port: MessagePortLike, options: ClientOptions = {}): RpcClient {
  const limits: RpcLimits = { ...defaultRpcLimits, ...options.limits };
  const store = new DisposableStore();
  const calls = new Map<number, PendingCall>();
  const subscriptions = new Map<number, ActiveSubscription>();
  const closes = new Emitter<void>();
  let nextId = 1;
  let closed = false;
  /** Event payload bytes read and not yet reported (less than one batch). */
  let unreported = 0;

  const post = (message: ClientMessage): void => {
    if (!closed) port.postMessage(message);
  };

  /** Sends a request; the AppError to answer it with when it can't be sent. */
  const send = (message: ClientMessage): AppError | undefined => {
    const breach = checkMessage(message, limits);
    if (breach !== undefined) return breach;
    try {
      post(message);
      return undefined;
    } catch (error) {
      return error instanceof AppError ? error : new AppError(toAppErrorData(error));
    }
  };

  const shutDown = (error: AppError): void => {
    if (closed) return;
    closed = true;
    for (const call of calls.values()) call.reject(error);
    calls.clear();
    for (const subscription of subscriptions.values()) subscription.error(error);
    subscriptions.clear();
    closes.fire();
    closes.dispose();
  };

  store.add(
    port.onMessage((raw) => {
      const message = parseServerMessage(raw);
      if (message === undefined) return;
      switch (message.type) {
        case 'result':
        case 'error': {
          const call = calls.get(message.id);
          if (call === undefined) return; // cancelled meanwhile
          calls.delete(message.id);
          if (message.type === 'result') call.resolve(message.value);
          else call.reject(fromAppErrorData(message.error));
          return;
        }
        case 'event':
          // Counted whether or not anyone still listens: the server counted it as sent.
          unreported += bulkBytes(message);
          if (unreported >= receiveCredit.ackBytes) {
            const whole = unreported - (unreported % receiveCredit.ackBytes);
            unreported -= whole;
            post({ type: 'received', bytes: whole });
          }
          subscriptions.get(message.id)?.next(message.payload);
          return;
        case 'listen-error': {
          const subscription = subscriptions.get(message.id);
          subscriptions.delete(message.id);
          subscription?.error(fromAppErrorData(message.error));
          return;
        }
      }
    }),
  );
  store.add(port.onClose(() => shutDown(connectionLost())));

  const call = (
    service: string,
    method: string,
    args: readonly unknown[],
    signal?: AbortSignalLike,
  ): Promise<unknown> => {
    if (closed) return Promise.reject(connectionLost());
    if (signal?.aborted) return Promise.reject(cancelled());
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!calls.delete(id)) return;
        post({ type: 'cancel', id });
        reject(cancelled());
      };
      const settle = (): void => signal?.removeEventListener('abort', onAbort);
      calls.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      const refused = send({ type: 'call', id, service, method, args: trimmed(args) });
      if (refused !== undefined) {
        calls.delete(id);
        reject(refused);
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };

  const notify = (service: string, method: string, args: readonly unknown[]): void => {
    if (closed) return;
    const refused = send({ type: 'notify', service, method, args: trimmed(args) });
    if (refused !== undefined) throw refused;
  };

  const makeProxy = (signal?: AbortSignalLike): ServicesProxy => {
    const proxy: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
    for (const service of Object.keys(serviceMethods) as ServiceName[]) {
      const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const method of Object.keys(serviceMethods[service])) {
        if (isNotification(service, method)) continue;
        methods[method] = (...args) => call(service, method, args, signal);
      }
      proxy[service] = Object.freeze(methods);
    }
    // Built from the registry, whose `satisfies` ties it to the Services interfaces.
    return Object.freeze(proxy) as unknown as ServicesProxy;
  };

  const notifyProxy = {} as Record<string, Record<string, (...args: unknown[]) => void>>;
  for (const service of Object.keys(notificationMethods) as NotifiedService[]) {
    notifyProxy[service] = Object.freeze(
      Object.fromEntries(
        notificationMethods[service].map((method) => [
          method,
          (...args: unknown[]) => notify(service, method, args),
        ]),
      ),
    );
  }

  return {
    services: makeProxy(),
    notify: Object.freeze(notifyProxy) as unknown as NotifyProxy,
    withSignal: (signal) => makeProxy(signal),
    get isClosed() {
      return closed;
    },
    subscribe(event, argument, listener, onError) {
      if (closed) {
        const error = connectionLost();
        void Promise.resolve().then(() => onError?.(error));
        return toDisposable(() => undefined);
      }
      const id = nextId++;
      subscriptions.set(id, {
        next: (payload) => listener(payload as EventPayload<typeof event>),
        error: (error) => onError?.(error),
      });
      const refused = send({ type: 'listen', id, event, argument });
      if (refused !== undefined) {
        subscriptions.delete(id);
        void Promise.resolve().then(() => onError?.(refused));
        return toDisposable(() => undefined);
      }
      return toDisposable(() => {
        if (subscriptions.delete(id)) post({ type: 'unlisten', id });
      });
    },
    onDidClose(listener) {
      if (closed) {
        void Promise.resolve().then(listener);
        return toDisposable(() => undefined);
      }
      return closes.event(listener);
    },
    dispose() {
      if (closed) return;
      // Tell the server to stop what it does for us before the port goes.
      for (const id of calls.keys()) post({ type: 'cancel', id });
      for (const id of subscriptions.keys()) post({ type: 'unlisten', id });
      subscriptions.clear();
      shutDown(cancelled());
      store.dispose();
      port.close();
    },
  };
}
