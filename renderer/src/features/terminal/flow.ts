/**
 * Flow control and input between a pane and the core.
 *
 * Output: the core stops reading from the container while too many bytes are
 * unacknowledged (shared/model `terminalFlow`), so the pane acknowledges what xterm has
 * actually parsed (its write callbacks), not what arrived, and only in whole batches, as
 * VS Code's AckDataBufferer does: an echoed keystroke costs no acknowledgement, and the
 * batch being no larger than the core's low watermark, what stays unacknowledged can
 * never keep the core paused.
 */
import { terminalFlow } from '../../../../shared/model';

export const ackBatchBytes = terminalFlow.ackBatchBytes;

export class AckBatcher {
  private drawn = 0;

  constructor(
    private readonly send: (bytes: number) => void,
    private readonly batchBytes: number = ackBatchBytes,
  ) {
    if (batchBytes > terminalFlow.lowWatermark) {
      throw new RangeError('An ack batch larger than the low watermark can stall the output.');
    }
  }

  /**
   * Call once per `term.write`; pass what it returns as the write's callback. `bytes` is
   * what the core sent (before any local decoration), so the two counts agree.
   */
  track(bytes: number): () => void {
    let called = false;
    return () => {
      if (called) return;
      called = true;
      this.drawn += bytes;
      if (this.drawn < this.batchBytes) return;
      const whole = this.drawn - (this.drawn % this.batchBytes);
      this.drawn -= whole;
      this.send(whole);
    };
  }

  /** Bytes parsed but not yet acknowledged (less than one batch). */
  get pending(): number {
    return this.drawn;
  }
}

export type InputEncoding = 'utf8' | 'binary';

/** A paste goes out in pieces of at most this many bytes, well inside one RPC message. */
export const maxInputPiece = 64 * 1024;

const encoder = new TextEncoder();

/**
 * The bytes the process reads for what xterm reported: `utf8` text as typed or pasted;
 * `binary` one byte per character (xterm's mouse reports in some modes).
 */
export function inputBytes(data: string, encoding: InputEncoding): Uint8Array {
  if (encoding === 'utf8') return encoder.encode(data);
  const bytes = new Uint8Array(data.length);
  for (let index = 0; index < data.length; index += 1) bytes[index] = data.charCodeAt(index);
  return bytes;
}

/**
 * `bytes` in pieces of at most `maxInputPiece`, each with a buffer of its own: a structured
 * clone copies a view's whole buffer, which would copy the whole paste once per piece.
 */
export function inputPieces(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length <= maxInputPiece) return [bytes];
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += maxInputPiece) {
    pieces.push(bytes.slice(offset, offset + maxInputPiece));
  }
  return pieces;
}
