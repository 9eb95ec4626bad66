/**
 * Every live streaming session of the core (terminals, port-forwards, log follows, file
 * transfers) and a bounded history of ended ones: what the session monitor shows. Owners
 * register a session, count its bytes and report how it ended; the registry samples
 * throughput once a second and tells listeners, batching traffic-only changes into that
 * tick so a busy session never floods the UI.
 */
import { randomUUID } from 'node:crypto';
import { AppError, type AppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type {
  SessionAttempt,
  SessionKind,
  SessionSnapshot,
  SessionStateName,
  SessionTarget,
  SessionTransport,
} from '../../../../shared/model';
import { Emitter, type Event } from '../../../../shared/event';

export interface SessionRegistryOptions {
  /** Ended sessions kept for the monitor, newest first. Default 200. */
  readonly historyLimit?: number;
  /** Throughput samples kept per session (one per tick). Default 60. */
  readonly samples?: number;
  /** Default 1000 ms. */
  readonly tickMs?: number;
  readonly now?: () => number;
}

export interface SessionInit {
  readonly kind: SessionKind;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly target: SessionTarget;
  readonly detail?: string;
  /** How the monitor's kill button ends it: the owner's own close. */
  readonly kill: () => void;
}

export interface SessionUpdate {
  readonly state?: SessionStateName;
  readonly stateReason?: string;
  readonly transport?: SessionTransport;
  readonly protocol?: string;
  readonly attempts?: readonly SessionAttempt[];
  readonly limitation?: string;
  readonly detail?: string;
  readonly target?: SessionTarget;
}

export interface SessionEnd {
  /** `ended` for a normal end (process exited, user closed it), `failed` otherwise. */
  readonly state: 'ended' | 'failed';
  readonly reason: string;
  readonly exitCode?: number;
  readonly error?: AppErrorData;
}

/** The owner's side of one registered session. Ending it is final; later calls are ignored. */
export interface SessionHandle {
  readonly id: string;
  update(update: SessionUpdate): void;
  /** Bytes from the container or pod to Porthole. */
  countIn(bytes: number): void;
  /** Bytes from Porthole to the container or pod. */
  countOut(bytes: number): void;
  end(end: SessionEnd): void;
}

interface Entry {
  snapshot: Mutable<SessionSnapshot>;
  readonly kill: () => void;
  /** bytesIn + bytesOut at the last tick. */
  bytesAtTick: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class SessionRegistry implements Disposable {
  private readonly live = new Map<string, Entry>();
  private history: SessionSnapshot[] = [];
  private readonly changeEmitter = new Emitter<readonly SessionSnapshot[]>();
  /** Every session, live first (oldest first), then the history (newest first). */
  readonly onDidChange: Event<readonly SessionSnapshot[]> = this.changeEmitter.event;
  private timer: NodeJS.Timeout | undefined;
  private readonly historyLimit: number;
  private readonly sampleCount: number;
  private readonly tickMs: number;
  private readonly now: () => number;
  private disposed = false;

  constructor(options: SessionRegistryOptions = {}) {
    this.historyLimit = options.historyLimit ?? 200;
    this.sampleCount = options.samples ?? 60;
    this.tickMs = options.tickMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  register(init: SessionInit): SessionHandle {
    const at = this.now();
    const entry: Entry = {
      snapshot: {
        id: randomUUID(),
        kind: init.kind,
        nodeId: init.nodeId,
        nodeName: init.nodeName,
        target: init.target,
        ...(init.detail !== undefined && { detail: init.detail }),
        attempts: [],
        state: 'starting',
        startedAt: at,
        lastActivityAt: at,
        bytesIn: 0,
        bytesOut: 0,
        throughput: [],
        killable: true,
      },
      kill: init.kill,
      bytesAtTick: 0,
    };
    const id = entry.snapshot.id;
    if (!this.disposed) {
      this.live.set(id, entry);
      this.ensureTicking();
      this.changed();
    }
    const isLive = (): boolean => this.live.get(id) === entry;
    return {
      id,
      update: (update) => {
        if (!isLive()) return;
        const { stateReason, ...rest } = update;
        Object.assign(entry.snapshot, rest);
        if (stateReason !== undefined || update.state !== undefined) {
          entry.snapshot.stateReason = stateReason;
        }
        this.changed();
      },
      countIn: (bytes) => {
        if (!isLive() || bytes <= 0) return;
        entry.snapshot.bytesIn += bytes;
        entry.snapshot.lastActivityAt = this.now();
      },
      countOut: (bytes) => {
        if (!isLive() || bytes <= 0) return;
        entry.snapshot.bytesOut += bytes;
        entry.snapshot.lastActivityAt = this.now();
      },
      end: (end) => {
        if (!isLive()) return;
        this.live.delete(id);
        const snapshot = entry.snapshot;
        snapshot.state = end.state;
        snapshot.stateReason = end.reason;
        snapshot.endedAt = this.now();
        snapshot.killable = false;
        if (end.exitCode !== undefined) snapshot.exitCode = end.exitCode;
        if (end.error !== undefined) snapshot.error = end.error;
        this.history = [{ ...snapshot }, ...this.history].slice(0, this.historyLimit);
        this.changed();
      },
    };
  }

  list(): readonly SessionSnapshot[] {
    const live = [...this.live.values()].map((entry) => ({ ...entry.snapshot }));
    return [...live, ...this.history];
  }

  /** Ends a live session through its owner. Rejects with `not-found` when it is not live. */
  kill(id: string): void {
    const entry = this.live.get(id);
    if (entry === undefined) {
      throw new AppError({
        code: 'not-found',
        message: 'That session has already ended.',
        hint: 'The monitor shows it under the ended sessions.',
      });
    }
    entry.kill();
  }

  clearHistory(): void {
    if (this.history.length === 0) return;
    this.history = [];
    this.changed();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.live.clear();
    this.changeEmitter.dispose();
  }

  private changed(): void {
    if (!this.disposed) this.changeEmitter.fire(this.list());
  }

  private ensureTicking(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.tickMs);
    // The monitor's clock must not keep a closing process alive.
    this.timer.unref();
  }

  private tick(): void {
    if (this.live.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const seconds = this.tickMs / 1000;
    for (const entry of this.live.values()) {
      const total = entry.snapshot.bytesIn + entry.snapshot.bytesOut;
      const rate = Math.round((total - entry.bytesAtTick) / seconds);
      entry.bytesAtTick = total;
      entry.snapshot.throughput = [...entry.snapshot.throughput, rate].slice(-this.sampleCount);
    }
    this.changed();
  }
}
