/**
 * The event loop as a clock. On a loaded machine (or in a burst of work: 500 nodes
 * connecting) the loop stalls, and time that passes while it stalls is time in which no
 * answer could have been read: a reply may sit in the socket while a timer that fired
 * late runs first. A deadline that counts wall time then calls a healthy runtime dead, and
 * nodes flap. `ResponsiveClock` counts only the time the loop was free to read: it ticks
 * every `tickMs`, and a tick that came late adds no more than `tickMs` (plus a little).
 */
import { AppError } from '../../../../shared/errors';

export interface ResponsiveClockOptions {
  /** How often the clock ticks; a deadline is this precise. */
  readonly tickMs?: number;
  readonly now?: () => number;
}

interface Waiter {
  readonly until: number;
  readonly fire: () => void;
}

export class ResponsiveClock {
  private readonly tickMs: number;
  private readonly now: () => number;
  /** Milliseconds the loop was responsive, since the clock was made. */
  private elapsed = 0;
  private last: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiters = new Set<Waiter>();

  constructor(options: ResponsiveClockOptions = {}) {
    this.tickMs = options.tickMs ?? 100;
    this.now = options.now ?? (() => performance.now());
    this.last = this.now();
  }

  /** Responsive milliseconds since the clock was made. */
  read(): number {
    return this.elapsed;
  }

  /**
   * Runs `call` with a signal that aborts after `ms` of responsive time, and turns that
   * abort into a `deadline-exceeded` AppError with `message`. `signal` (the caller's)
   * cancels as usual.
   */
  async within<T>(
    ms: number,
    message: string,
    call: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let expired = false;
    const cancel = this.after(ms, () => {
      expired = true;
      controller.abort();
    });
    try {
      return await call(controller.signal);
    } catch (error) {
      if (expired) throw new AppError({ code: 'deadline-exceeded', message });
      throw error;
    } finally {
      cancel();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Calls `fire` once `ms` of responsive time has passed; returns what cancels it. */
  after(ms: number, fire: () => void): () => void {
    const waiter: Waiter = { until: this.elapsed + ms, fire };
    this.waiters.add(waiter);
    this.start();
    return () => {
      this.waiters.delete(waiter);
      if (this.waiters.size === 0) this.stop();
    };
  }

  private start(): void {
    if (this.timer !== undefined) return;
    this.last = this.now();
    this.timer = setInterval(() => this.tick(), this.tickMs);
    // A deadline never keeps the process alive on its own.
    this.timer.unref();
  }

  private stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const now = this.now();
    // A late tick means the loop was busy: that time doesn't count. Half a tick of slack
    // for ordinary timer jitter.
    this.elapsed += Math.min(now - this.last, this.tickMs * 1.5);
    this.last = now;
    for (const waiter of [...this.waiters]) {
      if (waiter.until > this.elapsed) continue;
      this.waiters.delete(waiter);
      waiter.fire();
    }
    if (this.waiters.size === 0) this.stop();
  }
}

/** One clock for the whole core: every health probe's deadline counts on it. */
export const responsiveClock = new ResponsiveClock();

/**
 * Gives the event loop a turn (I/O, timers) before going on: long runs of work (connecting
 * a fleet, sending its first lists) yield between batches so no stall grows past a batch.
 */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
