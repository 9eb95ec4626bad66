import { toDisposable, type Disposable } from '../../../shared/lifecycle';

export type Event<T> = (listener: (value: T) => void) => Disposable;

/** A typed event source: subscribing returns the Disposable that unsubscribes. */
export class Emitter<T> implements Disposable {
  private readonly listeners = new Set<(value: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        // One listener's bug must neither break the others nor what fired the event.
        process.emitWarning(`A listener failed: ${String(error)}`);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
