import { yieldToLoop } from './loop';

export interface TaskQueueOptions {
  /**
   * A task that had to wait for a slot first gives the event loop a turn: a long queue
   * (a fleet connecting, its first lists) runs in batches with I/O and timers between
   * them, not as one long stall.
   */
  readonly yieldBetween?: boolean;
}

/**
 * Runs async tasks in call order, at most `concurrency` at a time: a task starts only after
 * every task called before it has started. For SPDY stream pairs this keeps ids in order (a
 * task submits its pair's two SYN_STREAMs in one synchronous step, and the session writes
 * them in call order) while a few pairs wait for their SYN_REPLYs at once, instead of each
 * connection paying for the round trips of every connection before it. The bound also keeps
 * a burst of connections within the session's own queue limit. For nodes, one queue bounds
 * how many runtimes are being connected (or listed) at once, fleet-wide.
 */
export class TaskQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly options: TaskQueueOptions = {},
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else {
      // Full: wait for a finishing task to hand its slot over (`running` stays counted), so
      // a task called meanwhile can't overtake the ones already waiting.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (this.options.yieldBetween === true) await yieldToLoop();
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}
