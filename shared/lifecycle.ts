/**
 * Disposables: every long-lived resource in Porthole (sockets, streams, subscriptions,
 * clients, listeners) is owned by something that disposes it exactly once.
 */
export interface Disposable {
  dispose(): void;
}

export function toDisposable(dispose: () => void): Disposable {
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      dispose();
    },
  };
}

/**
 * Owns a set of disposables and disposes them together, newest first. Adding to a store
 * that is already disposed disposes the newcomer at once, so late registrations can't leak.
 */
export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
    } else {
      this.items.add(item);
    }
    return item;
  }

  /** Removes an item without disposing it (ownership moves to the caller). */
  delete(item: Disposable): void {
    this.items.delete(item);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    for (const item of [...this.items].reverse()) {
      try {
        item.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    this.items.clear();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'Several disposables failed');
  }
}

/**
 * Owns at most one disposable at a time: setting a new value disposes the old one, and
 * disposing the holder disposes the value (and any set afterwards). For optional owned
 * resources (a watcher, a follower, a bridge) that come and go over an owner's life.
 */
export class MutableDisposable<T extends Disposable> implements Disposable {
  private current: T | undefined;
  private disposed = false;

  get value(): T | undefined {
    return this.current;
  }

  set value(next: T | undefined) {
    if (this.disposed) {
      next?.dispose();
      return;
    }
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    previous?.dispose();
  }

  /** Disposes the value, if any, leaving the holder empty and usable. */
  clear(): void {
    this.value = undefined;
  }

  /** Hands the value over without disposing it (ownership moves to the caller). */
  take(): T | undefined {
    const value = this.current;
    this.current = undefined;
    return value;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const value = this.take();
    value?.dispose();
  }
}
