import {
  isNotification,
  notificationMethods,
  serviceMethods,
  type NotifiedService,
  type AbortSignalLike,
  type EventName,
  type ServiceName,
} from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import { Emitter } from '../../../shared/event';
import { toDisposable, type Disposable } from '../../../shared/lifecycle';
import {
  createClient,
  type MessagePortLike,
  type NotifyProxy,
  type RpcClient,
  type ServicesProxy,
} from '../../../shared/rpc';

export type { NotifyProxy, ServicesProxy } from '../../../shared/rpc';

export type ConnectionState = 'connected' | 'reconnecting' | 'closed';

/**
 * What the UI holds: the contract's services and events, whatever carries them. The RPC
 * client's calls, kept across reconnects: while reconnecting, `notify` goes nowhere (the
 * terminals it is for end with the connection anyway), and a subscription is renewed by
 * itself (`resources` starts again with a `reset: true` payload), its `onError` hearing
 * only why it ended for good.
 */
export interface PortholeClient
  extends Pick<RpcClient, 'services' | 'notify' | 'withSignal' | 'subscribe'>, Disposable {
  readonly mode: 'electron' | 'browser';
  readonly connectionState: ConnectionState;
  onDidChangeConnection(listener: (state: ConnectionState) => void): Disposable;
}

export interface ReconnectOptions {
  /** Opens a new port, or undefined when this transport can't reconnect. */
  readonly reopen?: () => Promise<MessagePortLike>;
  /** Delays between attempts (the last one repeats). */
  readonly backoffMs?: readonly number[];
}

interface Entry {
  readonly event: EventName;
  readonly argument: unknown;
  readonly listener: (payload: unknown) => void;
  readonly onError: ((error: AppError) => void) | undefined;
  inner: Disposable | undefined;
}

function reconnecting(): AppError {
  return new AppError({
    code: 'connection-lost',
    message: 'Porthole is reconnecting to its core.',
    hint: 'Try again in a moment.',
  });
}

/**
 * A PortholeClient over one port, that (when it can reopen) survives the port closing:
 * calls made meanwhile reject with `connection-lost`, subscriptions are renewed on the
 * next port.
 */
export function createPortholeClient(
  first: MessagePortLike,
  mode: PortholeClient['mode'],
  options: ReconnectOptions = {},
): PortholeClient {
  const backoff = options.backoffMs ?? [250, 500, 1000, 2000, 5000];
  const entries = new Set<Entry>();
  const stateChanges = new Emitter<ConnectionState>();
  let state: ConnectionState = 'connected';
  let rpc: RpcClient | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const setState = (next: ConnectionState): void => {
    if (state === next) return;
    state = next;
    stateChanges.fire(next);
  };

  const attach = (entry: Entry): void => {
    if (rpc === undefined) return;
    const current = rpc;
    entry.inner = current.subscribe(
      entry.event,
      entry.argument as never,
      entry.listener,
      (error) => {
        // A dropped port is not the end of the subscription when we will reconnect.
        if (current.isClosed && state !== 'closed' && options.reopen !== undefined) return;
        entries.delete(entry);
        entry.onError?.(error);
      },
    );
  };

  const use = (port: MessagePortLike): void => {
    const client = createClient(port);
    rpc = client;
    client.onDidClose(() => {
      if (rpc !== client) return;
      rpc = undefined;
      if (state === 'closed') return;
      if (options.reopen === undefined) {
        setState('closed');
        return;
      }
      setState('reconnecting');
      retry(0);
    });
    for (const entry of entries) attach(entry);
  };

  const retry = (attempt: number): void => {
    const delay = backoff[Math.min(attempt, backoff.length - 1)] ?? 1000;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      const reopen = options.reopen;
      if (state === 'closed' || reopen === undefined) return;
      reopen().then(
        (port) => {
          if (state === 'closed') {
            port.close();
            return;
          }
          use(port);
          setState('connected');
        },
        () => retry(attempt + 1),
      );
    }, delay);
  };

  const proxy = (signal?: AbortSignalLike): ServicesProxy => {
    const services: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
    for (const service of Object.keys(serviceMethods) as ServiceName[]) {
      const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const method of Object.keys(serviceMethods[service])) {
        if (isNotification(service, method)) continue;
        methods[method] = (...args) => {
          if (rpc === undefined) return Promise.reject(reconnecting());
          const target = (signal === undefined
            ? rpc.services
            : rpc.withSignal(signal)) as unknown as Record<
            string,
            Record<string, (...a: unknown[]) => Promise<unknown>>
          >;
          const fn = target[service]?.[method];
          return fn === undefined ? Promise.reject(reconnecting()) : fn(...args);
        };
      }
      services[service] = Object.freeze(methods);
    }
    // Same shape as the RPC proxy: both are built from the contract's registry.
    return Object.freeze(services) as unknown as ServicesProxy;
  };

  const notifyProxy: Record<string, Record<string, (...args: unknown[]) => void>> = {};
  for (const service of Object.keys(notificationMethods) as NotifiedService[]) {
    notifyProxy[service] = Object.freeze(
      Object.fromEntries(
        notificationMethods[service].map((method) => [
          method,
          (...args: unknown[]) => {
            const target = rpc?.notify[service] as
              Record<string, (...a: unknown[]) => void> | undefined;
            target?.[method]?.(...args);
          },
        ]),
      ),
    );
  }

  use(first);

  return {
    services: proxy(),
    notify: Object.freeze(notifyProxy) as unknown as NotifyProxy,
    withSignal: (signal) => proxy(signal),
    mode,
    get connectionState() {
      return state;
    },
    subscribe(event, argument, listener, onError) {
      const entry: Entry = {
        event,
        argument,
        listener: listener as (payload: unknown) => void,
        onError,
        inner: undefined,
      };
      entries.add(entry);
      attach(entry);
      return toDisposable(() => {
        entries.delete(entry);
        entry.inner?.dispose();
      });
    },
    onDidChangeConnection: stateChanges.event,
    dispose() {
      if (state === 'closed') return;
      setState('closed');
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      entries.clear();
      rpc?.dispose();
      rpc = undefined;
    },
  };
}
