/**
 * Local connections waiting for a forward to have a transport again: each waits (paused,
 * nothing read) up to `waitMs`, so a reconnect that is quick enough loses no connection,
 * and at most `max` wait at once, so a client retrying in a loop can't pile them up.
 */
import type { AppError } from '../../../../shared/errors';
import { noTargetError, type PortForwardTransport } from '../../base/streaming/portforward';

interface Waiter {
  readonly resolve: (transport: PortForwardTransport) => void;
  readonly reject: (error: AppError) => void;
  readonly timer: NodeJS.Timeout;
}

export class TransportWaiters {
  private readonly waiters = new Set<Waiter>();

  constructor(
    private readonly waitMs: number,
    private readonly max: number,
  ) {}

  /** A wait for the next transport; `reason()` says why there is none when it times out. */
  wait(reason: () => string): Promise<PortForwardTransport> {
    if (this.waiters.size >= this.max) {
      return Promise.reject(
        noTargetError(`${reason()} Too many connections are waiting already.`, 0),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(noTargetError(reason(), this.waitMs));
        }, this.waitMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** The forward has a transport: every connection waiting goes on with it. */
  resolveAll(transport: PortForwardTransport): void {
    for (const waiter of [...this.waiters]) {
      this.waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(transport);
    }
  }

  /** The forward ended: no connection waits any longer. */
  rejectAll(error: () => AppError): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error());
    }
    this.waiters.clear();
  }
}
