/**
 * All port forwards of one node: starts them, tracks them, stops them. The UI reads
 * snapshots and listens to `onDidChange`; nothing here leaks sockets: stopping a forward,
 * or disposing the supervisor, closes every listener and connection it owns.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../../../shared/errors';
import { DisposableStore, type Disposable } from '../../../../shared/lifecycle';
import type { ForwardSnapshot, ForwardSpec } from '../../../../shared/model';
import { Emitter, type Event } from '../../base/emitter';
import { Forward, type ForwardDependencies } from './forward';

interface Entry {
  readonly forward: Forward;
  readonly subscription: Disposable;
}

export class ForwardSupervisor implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly changeEmitter = new Emitter<ForwardSnapshot>();
  /** Any forward's change: state changes at once, traffic at most a few times a second. */
  readonly onDidChange: Event<ForwardSnapshot> = this.changeEmitter.event;
  private disposed = false;

  constructor(private readonly deps: ForwardDependencies) {}

  /**
   * Starts a forward and resolves with its snapshot once it is active. Rejects with an
   * AppError (a port in use, no such pod…) and keeps nothing when it can't start.
   */
  async start(spec: ForwardSpec): Promise<ForwardSnapshot> {
    if (this.disposed) {
      throw new AppError({ code: 'cancelled', message: 'Port forwarding is shutting down.' });
    }
    const forward = new Forward(randomUUID(), spec, this.deps);
    const subscription = forward.onDidChange((snapshot) => this.changeEmitter.fire(snapshot));
    this.entries.set(forward.id, { forward, subscription });
    try {
      await forward.start();
    } catch (error) {
      this.remove(forward.id);
      throw error;
    }
    return forward.snapshot();
  }

  get(id: string): ForwardSnapshot | undefined {
    return this.entries.get(id)?.forward.snapshot();
  }

  list(): ForwardSnapshot[] {
    return [...this.entries.values()].map((entry) => entry.forward.snapshot());
  }

  /**
   * Waits until the forward is in one of `states` (checked at once, then on every change),
   * for at most `timeoutMs`. Resolves with that snapshot; rejects on timeout or when the
   * forward is gone.
   */
  waitFor(
    id: string,
    states: readonly ForwardSnapshot['state']['name'][],
    timeoutMs: number,
  ): Promise<ForwardSnapshot> {
    const entry = this.entries.get(id);
    if (entry === undefined) {
      return Promise.reject(new AppError({ code: 'not-found', message: 'No such forward.' }));
    }
    const now = entry.forward.snapshot();
    if (states.includes(now.state.name)) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const store = new DisposableStore();
      const timer = setTimeout(() => {
        store.dispose();
        const last = entry.forward.snapshot().state;
        reject(
          new AppError({
            code: 'deadline-exceeded',
            message: `The forward did not become ${states.join(' or ')} within ${timeoutMs} ms.`,
            detail: `It is ${last.name}: ${last.reason}`,
          }),
        );
      }, timeoutMs);
      store.add({ dispose: () => clearTimeout(timer) });
      store.add(
        entry.forward.onDidChange((snapshot) => {
          if (!states.includes(snapshot.state.name)) return;
          store.dispose();
          resolve(snapshot);
        }),
      );
    });
  }

  /** Stops a forward (closing its listeners and connections) and forgets it. */
  stop(id: string): boolean {
    return this.remove(id);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const id of [...this.entries.keys()]) this.remove(id);
    this.changeEmitter.dispose();
  }

  private remove(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    // Dispose first, so listeners see the final 'stopped' snapshot.
    entry.forward.dispose();
    entry.subscription.dispose();
    return true;
  }
}
