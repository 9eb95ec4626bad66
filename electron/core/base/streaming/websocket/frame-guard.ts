/**
 * Bounds how long a WebSocket frame may stay half-received. `ws` waits for the rest of a
 * frame as long as it takes, so a server that announces more bytes than it sends (garbage
 * after a valid 101 often does: a header claiming 65,535 bytes, then a few) would hang the
 * session for ever. Frame boundaries are followed in the raw bytes (RFC 6455 §5.2: two
 * header bytes, an extended length, a mask key, the payload — skipped, never read or
 * copied), and once a frame is incomplete and no byte arrived for `timeoutMs` while the
 * socket was being read, the socket fails with a protocol error.
 */
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';

/** Where the byte stream is relative to frame boundaries. */
export class FrameBoundaries {
  /** Header bytes of the frame being received, until the header is complete. */
  private readonly header: number[] = [];
  /** Payload bytes of the current frame still to come. */
  private remaining = 0;
  private expected = 0;

  /** True between frames. */
  get atBoundary(): boolean {
    return this.header.length === 0 && this.remaining === 0;
  }

  /** The frame under way: bytes of its payload received, and announced. */
  get progress(): { readonly received: number; readonly expected: number } {
    return { received: this.expected - this.remaining, expected: this.expected };
  }

  push(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remaining > 0) {
        const used = Math.min(this.remaining, chunk.length - offset);
        this.remaining -= used;
        offset += used;
        continue;
      }
      this.header.push(chunk[offset] ?? 0);
      offset += 1;
      const length = headerLength(this.header);
      if (length !== undefined && this.header.length === length) {
        this.expected = this.remaining = payloadLength(this.header);
        this.header.length = 0;
      }
    }
  }
}

/** The whole header's length once its first two bytes are known. */
function headerLength(header: readonly number[]): number | undefined {
  const second = header[1];
  if (second === undefined) return undefined;
  const masked = (second & 0x80) !== 0;
  const length7 = second & 0x7f;
  return 2 + (length7 === 126 ? 2 : length7 === 127 ? 8 : 0) + (masked ? 4 : 0);
}

function payloadLength(header: readonly number[]): number {
  const length7 = (header[1] ?? 0) & 0x7f;
  if (length7 < 126) return length7;
  const bytes = header.slice(2, length7 === 126 ? 4 : 10);
  // Beyond 2^53 ws refuses the frame by itself; here it only has to be "a lot".
  return bytes.reduce((value, byte) => value * 256 + byte, 0);
}

/** The error `ws` users see: a WS_ERR_ code, as ws's own protocol violations carry. */
function incompleteFrame(boundaries: FrameBoundaries, timeoutMs: number): Error {
  const { received, expected } = boundaries.progress;
  const seconds = timeoutMs / 1000;
  const error = new Error(
    `Incomplete WebSocket frame: ${received} of ${expected} payload bytes arrived, then nothing for ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`,
  );
  return Object.assign(error, { code: 'WS_ERR_INCOMPLETE_FRAME' });
}

/**
 * Watches `socket` (the upgraded connection under `ws`) for a frame that stalls half-way;
 * then `ws` emits an 'error' with code WS_ERR_INCOMPLETE_FRAME and is terminated. Any byte
 * restarts the clock; a paused `ws` (its reader is behind) does not count.
 */
export function guardIncompleteFrames(ws: WebSocket, socket: Duplex, timeoutMs: number): void {
  const boundaries = new FrameBoundaries();
  let timer: NodeJS.Timeout | undefined;
  const clear = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const arm = (): void => {
    clear();
    if (boundaries.atBoundary) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (ws.readyState !== ws.OPEN || boundaries.atBoundary) return;
      if (ws.isPaused) {
        arm();
        return;
      }
      ws.emit('error', incompleteFrame(boundaries, timeoutMs));
      ws.terminate();
    }, timeoutMs);
    timer.unref();
  };
  socket.on('data', (chunk: Buffer) => {
    boundaries.push(chunk);
    arm();
  });
  socket.once('close', clear);
}
