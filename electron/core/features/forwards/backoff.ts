/** Exponential backoff with jitter, capped: retries neither hammer a runtime nor stall. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** The next delay: initial, ×2 each time, at most max, ±20 % so retries don't align. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(Math.min(this.maxMs, base * (0.8 + Math.random() * 0.4)));
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** Waits `ms`, or less if `signal` aborts first (then resolves too: the caller checks). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
