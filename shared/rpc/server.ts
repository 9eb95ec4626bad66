import {
  isEventName,
  isNotification,
  methodArity,
  type EventSink,
  type EventSource,
  type ServiceHandlers,
} from '../contract';
import { AppError, toAppErrorData, type AppErrorData } from '../errors';
import { DisposableStore, type Disposable } from '../lifecycle';
import { createAbortController } from './abort';
import { checkMessage, defaultRpcLimits, printableName, type RpcLimits } from './limits';
import type { MessagePortLike } from './port';
import { parseClientMessage, type ServerMessage } from './protocol';
import { OutgoingScheduler } from './scheduler';

export interface ServeOptions {
  /** Hears what the dispatcher refused or could not send, e.g. for a log. */
  readonly onProtocolError?: (error: AppError) => void;
  /** Default `defaultRpcLimits`. */
  readonly limits?: Partial<RpcLimits>;
  /** Event payload bytes kept unread on the way at most; default `receiveCredit`'s. */
  readonly receiveWindowBytes?: number;
}

function invalid(message: string, hint?: string): AppError {
  return new AppError({ code: 'invalid-argument', message, ...(hint !== undefined && { hint }) });
}

function asAppError(error: unknown): AppError {
  return error instanceof AppError ? error : new AppError(toAppErrorData(error));
}

function exhausted(message: string, hint: string): AppError {
  return new AppError({ code: 'resource-exhausted', message, hint });
}

/** The id and kind of a message too large or odd to parse, so it can still be answered. */
function answerable(raw: unknown): { id: number; type: 'error' | 'listen-error' } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { id, type } = raw as { id?: unknown; type?: unknown };
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return undefined;
  if (type === 'call') return { id, type: 'error' };
  if (type === 'listen') return { id, type: 'listen-error' };
  return undefined;
}

type Handler = (...args: unknown[]) => unknown;

/**
 * The server half of the RPC: dispatches calls to `services` and subscriptions to
 * `events`, refusing anything the contract's registry does not list. Each call gets an
 * AbortSignal that a `cancel` message (or the port closing) aborts; each subscription is
 * disposed on `unlisten` or when the port closes. Disposing stops serving the port
 * (the port itself belongs to the caller).
 *
 * Everything a client can make it hold is bounded (`limits`): each message's size, depth
 * and strings, the calls running at once and the subscriptions open; past a limit the
 * client gets a `resource-exhausted` (or `invalid-argument`) answer for that request, and
 * nothing it sent is echoed back beyond a contract-shaped name. Event payload bytes
 * (terminal output) are sent within a window the client reports reading (`received`), fairly
 * between subscriptions (scheduler.ts); bounding the rest of what waits to be sent is the
 * transport's part (see the host's WebSocket port).
 */
export function serve(
  port: MessagePortLike,
  services: ServiceHandlers,
  events: EventSource,
  options: ServeOptions = {},
): Disposable {
  const limits: RpcLimits = { ...defaultRpcLimits, ...options.limits };
  const store = new DisposableStore();
  const calls = new Map<number, { abort(): void }>();
  const subscriptions = new Map<number, Disposable>();
  let stopped = false;

  /** Sends now; false when the message could not go (an error went in its place). */
  const postNow = (message: ServerMessage): boolean => {
    if (stopped) return false;
    try {
      port.postMessage(message);
      return true;
    } catch (error) {
      // A value that can't be cloned or encoded: answer with an error rather than nothing.
      const failure = new AppError({
        code: 'internal',
        message: 'The core produced an answer that could not be sent.',
        detail: error instanceof Error ? error.message : String(error),
      });
      options.onProtocolError?.(failure);
      if (message.type === 'result' || message.type === 'event') {
        const type = message.type === 'result' ? 'error' : 'listen-error';
        port.postMessage({ type, id: message.id, error: toAppErrorData(failure) });
      }
      return false;
    }
  };

  // Terminal output waits here, per subscription, while the client has a window's worth
  // of it unread (scheduler.ts); everything else passes straight through.
  const scheduler = new OutgoingScheduler({
    send: postNow,
    ...(options.receiveWindowBytes !== undefined && {
      windowBytes: options.receiveWindowBytes,
    }),
    onOverflow: () => {
      refuse(
        exhausted('The client stopped reading: too much output waited for it.', 'Reload the page.'),
      );
      port.close();
    },
  });
  store.add({ dispose: () => scheduler.dispose() });
  const post = (message: ServerMessage): void => {
    if (!stopped) scheduler.post(message);
  };

  const refuse = (error: AppError): AppErrorData => {
    options.onProtocolError?.(error);
    return toAppErrorData(error);
  };

  const handlerOf = (service: string, method: string): Handler | undefined => {
    const handlers = services[service as keyof ServiceHandlers] as unknown as
      Record<string, Handler> | undefined;
    const handler = handlers?.[method];
    return typeof handler === 'function' ? handler.bind(handlers) : undefined;
  };

  /**
   * A one-way call: run at once, in arrival order, nothing sent back. The service reports
   * its own failures (as events); what is left (a malformed notification, a handler that
   * throws anyway) can only be logged.
   */
  const onNotify = (service: string, method: string, args: readonly unknown[]): void => {
    const arity = methodArity(service, method);
    if (arity === undefined || !isNotification(service, method)) {
      const name = `${printableName(service)}.${printableName(method)}`;
      refuse(invalid(`Unknown notification ${name}.`));
      return;
    }
    if (args.length > arity) {
      refuse(invalid(`${service}.${method} takes ${arity} arguments, got ${args.length}.`));
      return;
    }
    const handler = handlerOf(service, method);
    const padded = Array.from({ length: arity }, (_, index) => args[index] ?? undefined);
    try {
      const result: unknown = handler?.(...padded);
      if (result instanceof Promise) result.catch((error: unknown) => refuse(asAppError(error)));
    } catch (error) {
      refuse(asAppError(error));
    }
  };

  const onCall = (id: number, service: string, method: string, args: readonly unknown[]): void => {
    const arity = methodArity(service, method);
    if (arity !== undefined && isNotification(service, method)) {
      const error = invalid(`${service}.${method} is a notification: send it with notify.`);
      post({ type: 'error', id, error: refuse(error) });
      return;
    }
    if (arity === undefined) {
      const name = `${printableName(service)}.${printableName(method)}`;
      post({ type: 'error', id, error: refuse(invalid(`Unknown method ${name}.`)) });
      return;
    }
    if (args.length > arity) {
      const error = invalid(`${service}.${method} takes ${arity} arguments, got ${args.length}.`);
      post({ type: 'error', id, error: refuse(error) });
      return;
    }
    if (calls.has(id)) {
      post({ type: 'error', id, error: refuse(invalid(`Call ${id} is already running.`)) });
      return;
    }
    if (calls.size >= limits.maxInFlightCalls) {
      const error = exhausted(
        `Too many calls at once: ${limits.maxInFlightCalls} are already running on this connection.`,
        'Wait for answers before sending more requests.',
      );
      post({ type: 'error', id, error: refuse(error) });
      return;
    }
    const controller = createAbortController();
    calls.set(id, controller);
    // JSON transports turn undefined into null; the contract never uses null as a value,
    // so top-level nulls are read back as undefined. Arguments are padded to the arity so
    // the context always lands in the same place.
    const padded = Array.from({ length: arity }, (_, index) => args[index] ?? undefined);
    const handlers = services[service as keyof ServiceHandlers] as unknown as Record<
      string,
      Handler
    >;
    const handler = handlers[method];
    const finish = (message: ServerMessage): void => {
      // A cancelled call has been answered on the client already: send nothing.
      if (calls.get(id) !== controller) return;
      calls.delete(id);
      if (controller.signal.aborted) return;
      post(message);
    };
    new Promise<unknown>((resolve) => {
      if (typeof handler !== 'function')
        throw new AppError({
          code: 'unimplemented',
          message: `${service}.${method} is not available.`,
        });
      resolve(handler.call(handlers, ...padded, { signal: controller.signal }));
    }).then(
      (value) => finish({ type: 'result', id, value }),
      (error: unknown) => finish({ type: 'error', id, error: toAppErrorData(error) }),
    );
  };

  const onListen = (id: number, event: string, argument: unknown): void => {
    if (!isEventName(event)) {
      const error = refuse(invalid(`Unknown event ${printableName(event)}.`));
      post({ type: 'listen-error', id, error });
      return;
    }
    if (subscriptions.has(id)) {
      const error = refuse(invalid(`Subscription ${id} already exists.`));
      post({ type: 'listen-error', id, error });
      return;
    }
    if (subscriptions.size >= limits.maxSubscriptions) {
      const error = exhausted(
        `Too many subscriptions: ${limits.maxSubscriptions} are already open on this connection.`,
        'Close views you no longer need, or reload the page.',
      );
      post({ type: 'listen-error', id, error: refuse(error) });
      return;
    }
    // `ended` guards both directions: nothing is sent after unlisten, and a source that
    // fails while starting is disposed as soon as start returns.
    let ended = false;
    let source: Disposable | undefined;
    const end = (): void => {
      if (ended) return;
      ended = true;
      subscriptions.delete(id);
      source?.dispose();
    };
    subscriptions.set(id, { dispose: end });
    const sink: EventSink<unknown> = {
      next: (payload: unknown): void => {
        if (!ended) post({ type: 'event', id, payload });
      },
      error: (error: AppError): void => {
        if (ended) return;
        end();
        post({ type: 'listen-error', id, error: toAppErrorData(error) });
      },
    };
    try {
      const start = events[event] as (argument: unknown, sink: EventSink<unknown>) => Disposable;
      const started = start(argument === null ? undefined : argument, sink);
      if (ended) started.dispose();
      else source = started;
    } catch (error) {
      sink.error(asAppError(error));
    }
  };

  const stopAll = (): void => {
    scheduler.dispose();
    for (const controller of calls.values()) controller.abort();
    calls.clear();
    const live = [...subscriptions.values()];
    subscriptions.clear();
    for (const subscription of live) subscription.dispose();
  };

  store.add(
    port.onMessage((raw) => {
      const breach = checkMessage(raw, limits);
      if (breach !== undefined) {
        const answer = answerable(raw);
        refuse(breach);
        if (answer !== undefined) post({ ...answer, error: toAppErrorData(breach) });
        return;
      }
      const message = parseClientMessage(raw);
      if (message === undefined) {
        options.onProtocolError?.(invalid('A malformed message was ignored.'));
        return;
      }
      switch (message.type) {
        case 'call':
          onCall(message.id, message.service, message.method, message.args);
          return;
        case 'notify':
          onNotify(message.service, message.method, message.args);
          return;
        case 'cancel': {
          const controller = calls.get(message.id);
          calls.delete(message.id);
          controller?.abort();
          return;
        }
        case 'listen':
          onListen(message.id, message.event, message.argument);
          return;
        case 'unlisten': {
          const subscription = subscriptions.get(message.id);
          subscriptions.delete(message.id);
          subscription?.dispose();
          scheduler.forget(message.id);
          return;
        }
        case 'received':
          scheduler.received(message.bytes);
          return;
      }
    }),
  );
  store.add(port.onClose(() => stopAll()));

  return {
    dispose() {
      if (stopped) return;
      stopAll();
      stopped = true;
      store.dispose();
    },
  };
}
