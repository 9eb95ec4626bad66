/**
 * Flow control for one terminal's output, as VS Code does it for its terminals: bytes sent
 * to the pane count as unacknowledged until the pane says it drew them (`ack`); above a
 * high watermark the remote output stops being read (the streaming layer then holds the
 * container back), and below a low one it is read again. Output that arrives while no
 * pane listens is queued, and counts the same way, so the queue is bounded too.
 *
 * Events are coalesced: the first chunk after a quiet spell goes out at once, chunks
 * arriving within `coalesceMs` after it are sent together. Output that follows input
 * (a keystroke's echo) also goes out at once, even right after other output: typing fast
 * must not wait on the coalescing window.
 */
import type { Disposable } from '../../../../shared/lifecycle';
import { terminalFlow, type TerminalEvent } from '../../../../shared/model';

export type OutputStreamName = 'stdout' | 'stderr';
export type TerminalExitEvent = Extract<TerminalEvent, { type: 'exit' }>;

export interface FlowLimits {
  /** Unacknowledged bytes above which reading stops. */
  readonly highWatermark: number;
  /** Unacknowledged bytes below which reading starts again. */
  readonly lowWatermark: number;
  /** How long chunks after the first of a burst wait to be sent together. */
  readonly coalesceMs: number;
  /** The largest output event, in bytes. */
  readonly maxEventBytes: number;
}

export const defaultFlowLimits: FlowLimits = {
  highWatermark: terminalFlow.highWatermark,
  lowWatermark: terminalFlow.lowWatermark,
  coalesceMs: 4,
  maxEventBytes: 64 * 1024,
};

export interface OutputFlowOptions {
  readonly limits?: Partial<FlowLimits>;
  /** Stop reading the remote output. */
  readonly pause: () => void;
  /** Read the remote output again. */
  readonly resume: () => void;
  /** The exit event reached a subscriber: the terminal can be forgotten. */
  readonly onExitDelivered?: () => void;
}

type Segment =
  | { readonly kind: 'output'; readonly stream: OutputStreamName; chunks: Buffer[] }
  | { readonly kind: 'exit'; readonly event: TerminalExitEvent };

export class OutputFlow implements Disposable {
  private readonly limits: FlowLimits;
  private queue: Segment[] = [];
  private queuedBytes = 0;
  private unacknowledged = 0;
  private subscriber: ((event: TerminalEvent) => void) | undefined;
  private cooldown: NodeJS.Timeout | undefined;
  private paused = false;
  private exitQueued = false;
  /** Input went to the process since the last flush: its echo must not wait. */
  private echoExpected = false;
  private exitDelivered = false;
  private flushing = false;
  private disposed = false;

  constructor(private readonly options: OutputFlowOptions) {
    this.limits = { ...defaultFlowLimits, ...options.limits };
  }

  /** Bytes read from the container and not yet acknowledged (queued or sent). */
  get inFlight(): number {
    return this.queuedBytes + this.unacknowledged;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get hasSubscriber(): boolean {
    return this.subscriber !== undefined;
  }

  get isExitDelivered(): boolean {
    return this.exitDelivered;
  }

  /** Output read from the container. */
  push(stream: OutputStreamName, chunk: Buffer): void {
    if (this.disposed || this.exitQueued || chunk.length === 0) return;
    const last = this.queue.at(-1);
    if (last?.kind === 'output' && last.stream === stream) last.chunks.push(chunk);
    else this.queue.push({ kind: 'output', stream, chunks: [chunk] });
    this.queuedBytes += chunk.length;
    if (!this.paused && this.inFlight > this.limits.highWatermark) {
      this.paused = true;
      this.options.pause();
    }
    if (this.subscriber === undefined) return;
    if (this.cooldown === undefined || this.echoExpected) {
      this.echoExpected = false;
      this.flush();
      this.armCooldown();
    } else if (this.queuedBytes >= this.limits.maxEventBytes) {
      this.flush();
    }
  }

  /** Input was sent: the output that answers it goes out without coalescing. */
  inputSent(): void {
    this.echoExpected = true;
  }

  /** The last event, after all output queued so far; sent at once when someone listens. */
  pushExit(event: TerminalExitEvent): void {
    if (this.disposed || this.exitQueued) return;
    this.exitQueued = true;
    this.queue.push({ kind: 'exit', event });
    this.flush();
  }

  /**
   * Makes `deliver` the one subscriber (replacing any other) and sends it what was queued.
   * Bytes sent to an earlier subscriber are no longer expected to be acknowledged.
   */
  subscribe(deliver: (event: TerminalEvent) => void): Disposable {
    this.subscriber = deliver;
    this.unacknowledged = 0;
    // A backlog just went out: what follows it right away is coalesced.
    if (this.flush()) this.armCooldown();
    this.maybeResume();
    return {
      dispose: () => {
        if (this.subscriber !== deliver) return;
        this.subscriber = undefined;
        // What it never acknowledged is gone with it; keep reading until the queue for the
        // next subscriber reaches the watermark.
        this.unacknowledged = 0;
        this.clearCooldown();
        this.maybeResume();
      },
    };
  }

  /** The subscriber drew `bytes` more bytes. */
  ack(bytes: number): void {
    if (this.disposed) return;
    this.unacknowledged = Math.max(0, this.unacknowledged - bytes);
    this.maybeResume();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clearCooldown();
    this.subscriber = undefined;
    this.queue = [];
    this.queuedBytes = 0;
  }

  private maybeResume(): void {
    if (this.paused && !this.disposed && this.inFlight < this.limits.lowWatermark) {
      this.paused = false;
      this.options.resume();
    }
  }

  private armCooldown(): void {
    if (this.cooldown !== undefined || this.disposed) return;
    this.cooldown = setTimeout(() => {
      this.cooldown = undefined;
      if (this.queue.length === 0 || this.subscriber === undefined) return;
      this.flush();
      this.armCooldown();
    }, this.limits.coalesceMs);
  }

  private clearCooldown(): void {
    if (this.cooldown !== undefined) clearTimeout(this.cooldown);
    this.cooldown = undefined;
  }

  /**
   * Sends everything queued to the subscriber, in order, output in bounded pieces; true when
   * anything went out. The
   * subscriber is read afresh for every piece: one that unsubscribes (or is replaced) while
   * being served gets nothing more, and the next one continues where it stopped.
   */
  private flush(): boolean {
    if (this.flushing) return false;
    this.flushing = true;
    let sent = false;
    try {
      while (!this.disposed) {
        const deliver = this.subscriber;
        const head = this.queue[0];
        if (deliver === undefined || head === undefined) break;
        sent = true;
        if (head.kind === 'exit') {
          this.queue.shift();
          this.exitDelivered = true;
          this.clearCooldown();
          deliver(head.event);
          this.options.onExitDelivered?.();
          break;
        }
        const piece = takeBytes(head.chunks, this.limits.maxEventBytes);
        if (head.chunks.length === 0) this.queue.shift();
        this.queuedBytes -= piece.length;
        this.unacknowledged += piece.length;
        deliver({ type: 'output', stream: head.stream, data: piece });
      }
    } finally {
      this.flushing = false;
    }
    return sent;
  }
}

/**
 * Takes up to `max` bytes off the front of `chunks` (which keeps the rest) as a plain
 * Uint8Array of their own, copied once. Electron's MessagePortMain can't transfer an
 * ArrayBuffer (electron/electron#37565), so a payload is copied by structured clone, and
 * that copies a view's whole buffer (a socket chunk's, a Buffer pool's slab): only a lone
 * chunk that is its whole buffer goes out as it is. Joining the chunks, then copying the
 * join to a buffer of its own, was two copies per byte: in a profile of a flood, the two
 * largest costs in the core's own code.
 */
export function takeBytes(chunks: Buffer[], max: number): Uint8Array {
  const [first] = chunks;
  if (first === undefined) return new Uint8Array(0);
  if (
    chunks.length === 1 &&
    first.length <= max &&
    first.byteOffset === 0 &&
    first.byteLength === first.buffer.byteLength
  ) {
    chunks.shift();
    return new Uint8Array(first.buffer, 0, first.byteLength);
  }
  let size = 0;
  for (const chunk of chunks) {
    size += chunk.length;
    if (size >= max) break;
  }
  const piece = new Uint8Array(Math.min(size, max));
  let filled = 0;
  while (filled < piece.length) {
    const chunk = chunks[0]!;
    const wanted = piece.length - filled;
    if (chunk.length <= wanted) {
      piece.set(chunk, filled);
      filled += chunk.length;
      chunks.shift();
    } else {
      piece.set(chunk.subarray(0, wanted), filled);
      filled += wanted;
      chunks[0] = chunk.subarray(wanted);
    }
  }
  return piece;
}
