/**
 * Whether a connected node's runtime still answers, and bringing the connection back when
 * it doesn't: one small state machine per connection, whether or not anything is
 * subscribed to the node.
 *
 *   up ──(probe fails)──▶ down: attempt 1, 2, … with jittered backoff ──(attempt works)──▶ up
 *   up ──(connection dropped)──▶ an attempt at once: works → up, facts read again; fails → down
 *
 * How it notices: a cheap `Version` call when nothing was heard from the runtime for
 * `quietMs` (the verdict: only an answer proves the runtime serves CRI; a frozen runtime
 * keeps its socket open; an answer to any other call, or an event, counts as well:
 * `heard`, so a busy node is probed less often than an idle one), and the gRPC channel's
 * connectivity leaving READY (the trigger: a killed or restarted runtime closes the
 * connection, which is seen within milliseconds, even when it is back before the next
 * probe, so a runtime upgraded in a few seconds is still probed again).
 *
 * An attempt is the owner's `reconnect`: a fresh gRPC connection, the runtime's facts and
 * capabilities read again. It goes on until it works or the monitor is disposed (the user
 * disconnected): runtimes come back after upgrades, crashes and reboots. While down, a
 * sign that the runtime is back (a local socket reappearing: `watchReturn`) starts an
 * attempt at once and the backoff over, so a restart is not left waiting out a long gap.
 */
import { AppError, toAppErrorData } from '../../../../shared/errors';
import { MutableDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { NodeOutage } from '../../../../shared/model';
import { backoffDelay, type BackoffOptions } from '../../base/ssh';

export interface RuntimeMonitorTimings {
  /** Silence from the runtime (no answer, no event) after which it is probed. */
  readonly quietMs: number;
  /** Reconnect attempts: about 250 ms, doubling to at most 5 s, ±20 %. */
  readonly backoff: Pick<BackoffOptions, 'initialDelayMs' | 'maxDelayMs' | 'factor' | 'jitter'>;
}

/**
 * After 3 s of silence, with the probe's own 1.5 s deadline (health.ts): a frozen runtime
 * is seen within about 4.5 s (the issue asks for 5). Probes are most of a fleet's steady
 * CPU (each a gRPC call): the fleet bench's nodes, a change every 2–4 s each, are silent
 * for 3 s in half their gaps, where a 2 s silence was probed in nearly every one.
 *
 * No gRPC keepalive: runtimes answer pings that often with GOAWAY (too_many_pings) and
 * drop the connection, and a deadlocked runtime still answers them.
 */
export const defaultMonitorTimings: RuntimeMonitorTimings = {
  quietMs: 3000,
  backoff: { initialDelayMs: 250, maxDelayMs: 5000, factor: 2, jitter: 0.2 },
};

export interface RuntimeMonitorOptions {
  /** Does the runtime answer? Resolves if so (a Version call with a short deadline). */
  readonly probe: (signal: AbortSignal) => Promise<void>;
  /**
   * Makes a new connection and reads the runtime's facts again; rejects while the runtime
   * can't be reached. Also run after a drop that the runtime survived.
   */
  readonly reconnect: (signal: AbortSignal) => Promise<void>;
  /** The outage began, moved on (next attempt) or ended (undefined). */
  readonly onChange: (outage: NodeOutage | undefined) => void;
  /** The connection dropped: anything listening (client.onDidDrop) calls this. */
  readonly onDidDrop: (listener: () => void) => Disposable;
  /**
   * While down: calls `listener` when the runtime may be back (for a local node, its
   * socket was created again). Optional: without it, the backoff alone finds it.
   */
  readonly watchReturn?: (listener: () => void) => Disposable;
  readonly timings?: Partial<RuntimeMonitorTimings>;
  readonly now?: () => number;
}

export class RuntimeMonitor implements Disposable {
  private readonly timings: RuntimeMonitorTimings;
  private readonly now: () => number;
  private readonly lifetime = new AbortController();
  private readonly dropSubscription: Disposable;
  /** Armed while down (see watchReturn). */
  private readonly returnWatch = new MutableDisposable<Disposable>();
  private timer: NodeJS.Timeout | undefined;
  /** The probe or attempt under way; at most one at a time. */
  private busy: Promise<void> | undefined;
  private current: NodeOutage | undefined;
  private lastSeenAt: number;
  /** Another check was asked for while one ran. */
  private again = false;

  constructor(private readonly options: RuntimeMonitorOptions) {
    this.timings = { ...defaultMonitorTimings, ...options.timings };
    this.now = options.now ?? Date.now;
    this.lastSeenAt = this.now();
    this.dropSubscription = options.onDidDrop(() => this.onDrop());
    this.schedule(this.timings.quietMs);
  }

  /**
   * The runtime answered something (a list, an event): proof enough that it is alive, so
   * the next probe waits `quietMs` from now.
   */
  heard(): void {
    if (this.current === undefined) this.lastSeenAt = this.now();
  }

  /** The outage under way, or undefined while the runtime answers. */
  get outage(): NodeOutage | undefined {
    return this.current;
  }

  /**
   * Looks now (a call just failed as if the runtime were gone): up, a probe; down, an
   * attempt. Never faster than one at a time.
   */
  check(): void {
    if (this.disposed) return;
    if (this.busy !== undefined) {
      this.again = true;
      return;
    }
    this.clearTimer();
    void this.run(this.current === undefined ? 'probe' : 'attempt');
  }

  /**
   * The user's Retry or Connect while down: an attempt now, the backoff starting over.
   * Resolves once connected; rejects with why not (the monitor goes on trying).
   */
  async retryNow(): Promise<void> {
    if (this.disposed) throw cancelled();
    if (this.current === undefined) return;
    this.current = { ...this.current, attempt: 0 };
    while (this.busy !== undefined) await this.busy;
    if (this.current === undefined) return;
    this.clearTimer();
    await this.run('attempt');
    const outage = this.current;
    if (outage !== undefined) {
      throw new AppError(
        outage.lastError ?? { code: 'unavailable', message: 'The runtime does not answer yet.' },
      );
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.lifetime.abort();
    this.clearTimer();
    this.dropSubscription.dispose();
    this.returnWatch.dispose();
  }

  /** The runtime may be back: try now, and quickly again if it is still starting. */
  private onReturn(): void {
    if (this.disposed || this.current === undefined) return;
    this.current = { ...this.current, attempt: 0 };
    this.check();
  }

  private get disposed(): boolean {
    return this.lifetime.signal.aborted;
  }

  private onDrop(): void {
    if (this.disposed || this.current !== undefined) return;
    if (this.busy !== undefined) {
      this.again = true;
      return;
    }
    this.clearTimer();
    // Whether it is back already or not, what we knew about it may be out of date.
    void this.run('attempt');
  }

  private run(kind: 'probe' | 'attempt'): Promise<void> {
    const work = (kind === 'probe' ? this.probe() : this.attempt()).finally(() => {
      this.busy = undefined;
      if (this.disposed) return;
      if (this.again) {
        this.again = false;
        this.check();
      }
    });
    this.busy = work;
    return work;
  }

  private async probe(): Promise<void> {
    try {
      await this.options.probe(this.lifetime.signal);
      if (this.disposed) return;
      this.lastSeenAt = this.now();
      this.schedule(this.timings.quietMs);
    } catch (error) {
      if (this.disposed) return;
      this.goDown(toAppError(error));
    }
  }

  private async attempt(): Promise<void> {
    try {
      await this.options.reconnect(this.lifetime.signal);
      if (this.disposed) return;
      this.lastSeenAt = this.now();
      const wasDown = this.current !== undefined;
      this.current = undefined;
      this.returnWatch.clear();
      this.schedule(this.timings.quietMs);
      if (wasDown) this.options.onChange(undefined);
    } catch (error) {
      if (this.disposed) return;
      const appError = toAppError(error);
      if (this.current === undefined) {
        this.goDown(appError);
        return;
      }
      this.next({ ...this.current, lastError: toAppErrorData(appError) });
    }
  }

  private goDown(error: AppError): void {
    const now = this.now();
    this.returnWatch.value ??= this.options.watchReturn?.(() => this.onReturn());
    this.next({
      kind: outageKind(error),
      since: now,
      lastSeenAt: this.lastSeenAt,
      attempt: 0,
      nextAttemptAt: now,
      error: toAppErrorData(error),
    });
  }

  /** Schedules the next attempt of the outage and tells the owner. */
  private next(outage: NodeOutage): void {
    const attempt = outage.attempt + 1;
    const delay = backoffDelay(attempt, { ...this.timings.backoff, maxAttempts: Infinity });
    const kind = outage.lastError === undefined ? outage.kind : outageKind(outage.lastError);
    this.current = { ...outage, kind, attempt, nextAttemptAt: this.now() + delay };
    this.schedule(delay);
    this.options.onChange(this.current);
  }

  private schedule(delayMs: number): void {
    this.clearTimer();
    if (this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // Up and heard from meanwhile: no need to ask yet.
      const quiet = this.now() - this.lastSeenAt;
      if (this.current === undefined && quiet < this.timings.quietMs) {
        this.schedule(this.timings.quietMs - quiet);
        return;
      }
      this.check();
    }, delayMs);
    // A monitor never keeps the process alive on its own.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** A call that ran out of time: the socket took it, nothing came back. */
function outageKind(error: { readonly code: string }): NodeOutage['kind'] {
  return error.code === 'deadline-exceeded' ? 'not-answering' : 'unreachable';
}

function toAppError(error: unknown): AppError {
  return error instanceof AppError ? error : new AppError(toAppErrorData(error));
}

function cancelled(): AppError {
  return new AppError({ code: 'cancelled', message: 'The node was disconnected.' });
}
