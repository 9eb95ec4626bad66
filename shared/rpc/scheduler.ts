import type { ServerMessage } from './protocol';

/**
 * How much bulk output (event payloads' bytes: terminal output) may travel on one
 * connection at a time, and how the client acknowledges it.
 *
 * Measured on the terminal bench (`term_echo_during_flood_p99_ms`): during a flood in one
 * pane, the host WebSocket's own buffer (`bufferedAmount`) was empty each time the other
 * pane's echo was sent, while close to the whole flood window (1 MiB) sat in the kernel's
 * socket queues and Chromium's, waiting for the page to read it (`/proc/net/tcp`: 140 KiB
 * sending, 800 KiB received and unread), and the echo waited behind it for 0.3–1.8 s.
 * A budget on what the socket holds can't see those queues; only the client knows what
 * it has read, so it says so (`received`), and the core keeps a bounded window on the way.
 *
 * The window costs a flood throughput (it adds a round trip through a busy page), so it
 * applies only while another subscription has output too: a lone flood is bounded by its
 * terminal's own flow control, as before. Measured again for issue 16 (terminal bench, a
 * 2-core machine at load 7–15, runs alternated): with the window always on, a lone flood
 * gave 2.7 MB/s (median of 5) against 3.6 (of 7) this way, and the echo during a flood
 * did not improve (p99 320 against 339 ms, p50 61 against 52). What the bytes on the way
 * cost an echo is small here: when it is sent, 77 KiB (median, at most 122) travel ahead
 * of it, and it waits in this scheduler 0.1 ms (median); the rest of its time is the
 * input reaching the core, the container's round trip and the page's busy main thread.
 */
export const receiveCredit = {
  /** Bulk bytes on the way, above which output waits while two subscriptions have some. */
  windowBytes: 64 * 1024,
  /** The client reports what it received in whole batches of this many bytes. */
  ackBytes: 16 * 1024,
  /** A subscription has output "now" if it sent or queued some this recently. */
  activeMs: 5000,
  /**
   * An event this small (a keystroke's echo) with nothing ahead of it in its lane goes at
   * once while less than `windowBytes + interactiveSlackBytes` travels: it then waits only
   * behind the window, not also for the next report.
   */
  interactiveBytes: 4 * 1024,
  interactiveSlackBytes: 64 * 1024,
} as const;

export interface OutgoingSchedulerOptions {
  /** Sends one message on the port; false when it could not be sent (nothing travels). */
  readonly send: (message: ServerMessage) => boolean;
  /** Default `receiveCredit.windowBytes`. */
  readonly windowBytes?: number;
  /**
   * Bulk bytes that may wait in the scheduler across all subscriptions; past it
   * `onOverflow` runs (the client stopped reading). Each terminal bounds its own output
   * (its flow control); this is the backstop. Default 64 MiB.
   */
  readonly maxQueuedBytes?: number;
  readonly onOverflow?: () => void;
  /** How fast a subscription's recent output is forgotten. Default 250 ms. */
  readonly halfLifeMs?: number;
  /** Milliseconds, monotonic; `performance.now` by default (tests pass their own). */
  readonly now?: () => number;
}

interface Lane {
  readonly queue: ServerMessage[];
  /** Bulk bytes sent recently, decayed by `halfLifeMs`: how much this lane floods. */
  recent: number;
  recentAt: number;
  /** When it last sent or queued bulk output. */
  activeAt: number;
}

/** The bytes of an event's binary payload fields (where frames.ts puts payloads). */
export function bulkBytes(message: ServerMessage): number {
  if (message.type !== 'event') return 0;
  const payload = message.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 0;
  let bytes = 0;
  for (const field of Object.values(payload as Record<string, unknown>)) {
    if (ArrayBuffer.isView(field)) bytes += field.byteLength;
  }
  return bytes;
}

const clock = globalThis as unknown as { performance?: { now(): number } };
const defaultNow = (): number => clock.performance?.now() ?? Date.now();

/**
 * The dispatcher's outgoing messages on one connection, in an order that keeps every
 * subscription's own order and lets no subscription's output hold up another's:
 *
 * - Answers to calls, and events on a subscription with nothing waiting that carry no
 *   bytes, go at once: they are small and nothing of theirs is ahead of them.
 * - While two or more subscriptions have output, an event with bytes (terminal output)
 *   goes at once only while less than the window is unacknowledged; otherwise it waits in
 *   its subscription's lane, and so does everything that subscription sends after it (an
 *   exit follows the output it ends).
 * - As the client reports bytes received, lanes are served one message at a time, the
 *   lane with the least recent output first: a pane that types (a few bytes of echo) goes
 *   ahead of one that floods, two floods take turns. Messages are already bounded (a
 *   terminal sends at most 64 KiB per event), so a turn is a bounded slice.
 */
export class OutgoingScheduler {
  private readonly lanes = new Map<number, Lane>();
  private readonly windowBytes: number;
  private readonly maxQueuedBytes: number;
  private readonly halfLifeMs: number;
  private readonly now: () => number;
  private inTransit = 0;
  private queuedBytes = 0;
  private pumping = false;
  private disposed = false;

  constructor(private readonly options: OutgoingSchedulerOptions) {
    this.windowBytes = options.windowBytes ?? receiveCredit.windowBytes;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024 * 1024;
    this.halfLifeMs = options.halfLifeMs ?? 250;
    this.now = options.now ?? defaultNow;
  }

  /** Bulk bytes sent and not yet reported received. */
  get unacknowledged(): number {
    return this.inTransit;
  }

  /** Bulk bytes waiting in lanes. */
  get waiting(): number {
    return this.queuedBytes;
  }

  post(message: ServerMessage): void {
    if (this.disposed) return;
    if (message.type !== 'event' && message.type !== 'listen-error') {
      this.options.send(message);
      return;
    }
    const lane = this.laneOf(message.id);
    const bytes = bulkBytes(message);
    if (bytes > 0) lane.activeAt = this.now();
    if (lane.queue.length === 0 && this.mayGo(bytes)) {
      this.transmit(lane, message, bytes);
      if (message.type === 'listen-error') this.lanes.delete(message.id);
      return;
    }
    lane.queue.push(message);
    this.queuedBytes += bytes;
    if (this.queuedBytes > this.maxQueuedBytes) {
      this.options.onOverflow?.();
      return;
    }
    // Another subscription may have gone quiet since the last report: the window may be
    // open again.
    this.pump();
  }

  /** The client read `bytes` more bulk bytes: send what the window now allows. */
  received(bytes: number): void {
    if (this.disposed) return;
    this.inTransit = Math.max(0, this.inTransit - bytes);
    this.pump();
  }

  /** The subscription ended on the client's side: what waits for it is dropped. */
  forget(subscriptionId: number): void {
    const lane = this.lanes.get(subscriptionId);
    if (lane === undefined) return;
    for (const message of lane.queue) this.queuedBytes -= bulkBytes(message);
    this.lanes.delete(subscriptionId);
  }

  dispose(): void {
    this.disposed = true;
    this.lanes.clear();
    this.queuedBytes = 0;
  }

  /** Whether more than one subscription has output now: only then is the window kept. */
  private contended(): boolean {
    const since = this.now() - receiveCredit.activeMs;
    let active = 0;
    for (const lane of this.lanes.values()) {
      if (lane.activeAt >= since && (active += 1) > 1) return true;
    }
    return false;
  }

  private mayGo(bytes: number): boolean {
    if (bytes === 0 || this.inTransit < this.windowBytes) return true;
    if (
      bytes <= receiveCredit.interactiveBytes &&
      this.inTransit < this.windowBytes + receiveCredit.interactiveSlackBytes
    ) {
      return true;
    }
    return !this.contended();
  }

  private laneOf(id: number): Lane {
    let lane = this.lanes.get(id);
    if (lane === undefined) {
      const now = this.now();
      lane = { queue: [], recent: 0, recentAt: now, activeAt: -Infinity };
      this.lanes.set(id, lane);
    }
    return lane;
  }

  private transmit(lane: Lane, message: ServerMessage, bytes: number): void {
    if (!this.options.send(message) || bytes === 0) return;
    this.inTransit += bytes;
    lane.recent = this.recentOf(lane) + bytes;
    lane.recentAt = this.now();
  }

  private recentOf(lane: Lane): number {
    const elapsed = this.now() - lane.recentAt;
    return elapsed <= 0 ? lane.recent : lane.recent * 0.5 ** (elapsed / this.halfLifeMs);
  }

  /** Sends from the lanes while the window allows, least recent output first. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.disposed) {
        let best: [number, Lane] | undefined;
        let bestRecent = Infinity;
        for (const entry of this.lanes) {
          const head = entry[1].queue[0];
          if (head === undefined) continue;
          // What costs no window (an exit, a notice) goes as soon as it is at the head.
          const bytes = bulkBytes(head);
          if (!this.mayGo(bytes)) continue;
          const recent = bytes === 0 ? -1 : this.recentOf(entry[1]);
          // Map order is first come, first served among equals.
          if (recent < bestRecent) {
            best = entry;
            bestRecent = recent;
          }
        }
        if (best === undefined) return;
        const [id, lane] = best;
        const message = lane.queue.shift()!;
        const bytes = bulkBytes(message);
        this.queuedBytes -= bytes;
        // A served lane goes to the back: the next equal one is the one that waited longest.
        this.lanes.delete(id);
        if (message.type !== 'listen-error') this.lanes.set(id, lane);
        this.transmit(lane, message, bytes);
      }
    } finally {
      this.pumping = false;
    }
  }
}
