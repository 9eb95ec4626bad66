import type { Disposable } from '../../../../shared/lifecycle';

export const resizeDebounceMs = 100;

export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Window sizes for the PTY. Dragging a splitter or the window fits the pane many times a
 * second; the process only needs the size it settles on (each SIGWINCH makes a shell or
 * an editor redraw), so sizes wait `delayMs` for the next one. The first size travels
 * with `open` itself and is never sent again.
 */
export class ResizeDebouncer implements Disposable {
  private sent: { cols: number; rows: number } | undefined;
  private wanted: { cols: number; rows: number } | undefined;
  private timer: unknown;

  constructor(
    private readonly send: (cols: number, rows: number) => void,
    private readonly delayMs = resizeDebounceMs,
    private readonly timers: Timers = realTimers,
  ) {}

  /** The size `open` carried: the PTY has it already. */
  opened(cols: number, rows: number): void {
    this.cancel();
    this.sent = { cols, rows };
    this.wanted = undefined;
  }

  request(cols: number, rows: number): void {
    if (cols <= 0 || rows <= 0) return;
    this.wanted = { cols, rows };
    this.cancel();
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.delayMs);
  }

  /** Sends the pending size now (if it differs from what the PTY has). */
  flush(): void {
    this.cancel();
    const wanted = this.wanted;
    this.wanted = undefined;
    if (wanted === undefined) return;
    if (this.sent?.cols === wanted.cols && this.sent.rows === wanted.rows) return;
    this.sent = wanted;
    this.send(wanted.cols, wanted.rows);
  }

  dispose(): void {
    this.cancel();
    this.wanted = undefined;
  }

  private cancel(): void {
    if (this.timer === undefined) return;
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
