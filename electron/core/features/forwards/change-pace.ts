/**
 * When the forwards list goes out: state changes at once, changes of traffic alone at most
 * every interval, so a busy forward does not flood the renderer.
 */
import type { Disposable } from '../../../../shared/lifecycle';
import type { ForwardSnapshot } from '../../../../shared/model';

/** Did anything but traffic change? Those changes go out at once; traffic is batched. */
export function changedBeyondTraffic(
  previous: ForwardSnapshot | undefined,
  next: ForwardSnapshot,
): boolean {
  if (previous === undefined) return true;
  return (
    previous.state !== next.state ||
    previous.ports.length !== next.ports.length ||
    previous.pod?.podSandboxId !== next.pod?.podSandboxId ||
    previous.transport?.kind !== next.transport?.kind ||
    previous.transport?.protocol !== next.transport?.protocol ||
    previous.metrics.lastError?.at !== next.metrics.lastError?.at
  );
}

export class ChangePace implements Disposable {
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly fire: () => void,
  ) {}

  /** State changes go out at once; traffic alone at most every `intervalMs`. */
  changed(immediate: boolean): void {
    if (this.disposed) return;
    if (immediate) {
      this.cancel();
      this.fire();
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.disposed) this.fire();
    }, this.intervalMs);
    this.timer.unref();
  }

  dispose(): void {
    this.disposed = true;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
