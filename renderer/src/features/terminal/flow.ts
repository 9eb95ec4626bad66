/**
 * Flow control and input ordering between a pane and the core.
 *
 * Output: the core stops reading from the container while too many bytes are
 * unacknowledged (about 100 KiB), so the pane acknowledges what xterm has actually parsed
 * (its write callbacks), not what arrived. One `ack` per chunk would be an RPC per few KiB;
 * batching them keeps the window moving with a fraction of the calls.
 */

export const ackBatchBytes = 16 * 1024;

export class AckBatcher {
  private inFlight = 0;
  private drawn = 0;

  constructor(
    private readonly send: (bytes: number) => void,
    private readonly batchBytes = ackBatchBytes,
  ) {}

  /**
   * Call once per `term.write`; pass what it returns as the write's callback. `bytes` is
   * what the core sent (before any local decoration), so the two counts agree.
   */
  track(bytes: number): () => void {
    this.inFlight += 1;
    let called = false;
    return () => {
      if (called) return;
      called = true;
      this.inFlight -= 1;
      this.drawn += bytes;
      // Acknowledge in batches, and at once when xterm has caught up: an idle pane must
      // never sit on a few unacknowledged bytes that keep the core waiting.
      if (this.drawn >= this.batchBytes || this.inFlight === 0) this.flush();
    };
  }

  /** Bytes parsed but not yet acknowledged. */
  get pending(): number {
    return this.drawn;
  }

  flush(): void {
    if (this.drawn === 0) return;
    const bytes = this.drawn;
    this.drawn = 0;
    this.send(bytes);
  }
}

export type InputEncoding = 'utf8' | 'binary';

/**
 * Keystrokes and pastes, in order. Each `write` is an RPC; the core may handle two calls
 * concurrently, so a second keystroke must not overtake the first. One call is in flight
 * at a time and what is typed meanwhile goes out together with the next call: a single
 * keystroke leaves at once, a burst costs one round trip. A long paste goes out in pieces
 * of at most `maxPiece` characters, each well inside what one RPC message may carry.
 */
export const maxInputPiece = 64 * 1024;

export class InputQueue {
  private readonly queued: { data: string; encoding: InputEncoding }[] = [];
  private sending = false;
  private stopped = false;

  constructor(
    private readonly send: (data: string, encoding: InputEncoding) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  push(data: string, encoding: InputEncoding = 'utf8'): void {
    if (this.stopped || data === '') return;
    const last = this.queued[this.queued.length - 1];
    if (last !== undefined && last.encoding === encoding) last.data += data;
    else this.queued.push({ data, encoding });
    if (!this.sending) void this.drain();
  }

  /** The next piece to send: the queue's head, or its first `maxInputPiece` characters. */
  private next(): { data: string; encoding: InputEncoding } | undefined {
    const head = this.queued[0];
    if (head === undefined) return undefined;
    if (head.data.length <= maxInputPiece) return this.queued.shift();
    // Never split a surrogate pair: each piece is valid UTF-16 on its own.
    let end = maxInputPiece;
    const code = head.data.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    const piece = head.data.slice(0, end);
    head.data = head.data.slice(end);
    return { data: piece, encoding: head.encoding };
  }

  /** Drops what is queued and refuses more (the terminal ended). */
  stop(): void {
    this.stopped = true;
    this.queued.length = 0;
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      for (let next = this.next(); next !== undefined; next = this.next()) {
        try {
          await this.send(next.data, next.encoding);
        } catch (error) {
          if (!this.stopped) this.onError(error);
        }
        if (this.stopped) return;
      }
    } finally {
      this.sending = false;
    }
  }
}
