/**
 * The one event primitive: an `Emitter` fires values to its listeners; its `event` is what
 * it hands out, so holders can subscribe but not fire. Subscribing returns the Disposable
 * that unsubscribes. Used on both sides of the contract (core, Electron shell, RPC).
 */
import { toDisposable, type Disposable } from './lifecycle';

export type Event<T> = (listener: (value: T) => void) => Disposable;

type ListenerErrorHandler = (error: unknown) => void;

/** Plain ECMAScript has no console type; every runtime Porthole runs in has one. */
const platformConsole = (globalThis as { console?: { error(...values: unknown[]): void } }).console;

let listenerErrorHandler: ListenerErrorHandler = (error) =>
  platformConsole?.error('A listener failed:', error);

/**
 * Where a listener's exception goes (the console until the core hands it to its log: createCore). Returns the
 * Disposable that puts the previous handler back.
 */
export function setListenerErrorHandler(handler: ListenerErrorHandler): Disposable {
  const previous = listenerErrorHandler;
  listenerErrorHandler = handler;
  return toDisposable(() => {
    if (listenerErrorHandler === handler) listenerErrorHandler = previous;
  });
}

export class Emitter<T> implements Disposable {
  // One entry per subscription, so a function subscribed twice is called twice and each
  // Disposable removes only its own.
  private readonly listeners = new Set<{ readonly listener: (value: T) => void }>();
  private disposed = false;

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return toDisposable(() => undefined);
    const entry = { listener };
    this.listeners.add(entry);
    return toDisposable(() => this.listeners.delete(entry));
  };

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /**
   * Calls the listeners subscribed now, in subscription order. One that unsubscribes during
   * the call is not called after; one that throws neither stops the others nor what fired.
   */
  fire(value: T): void {
    for (const entry of [...this.listeners]) {
      if (!this.listeners.has(entry)) continue;
      try {
        entry.listener(value);
      } catch (error) {
        listenerErrorHandler(error);
      }
    }
  }

  /** Drops every listener; later subscriptions and fires do nothing. */
  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}
