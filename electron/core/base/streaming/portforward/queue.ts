/**
 * Runs async tasks in call order, at most `concurrency` at a time: a task starts only after
 * every task called before it has started. For SPDY stream pairs this keeps ids in order (a
 * task submits its pair's two SYN_STREAMs in one synchronous step, and the session writes
 * them in call order) while a few pairs wait for their SYN_REPLYs at once, instead of each
 * connection paying for the round trips of every connection before it. The bound also keeps
 * a burst of connections within the session's own queue limit.
 */
export class TaskQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    // Full: wait for a finishing task to hand its slot over (`running` stays counted), so a
    // task called meanwhile can't overtake the ones already waiting.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}
