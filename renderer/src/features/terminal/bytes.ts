/**
 * Output bytes on their way from the `terminal` event to xterm.js. They stay bytes all the
 * way (xterm decodes UTF-8 itself, statefully across writes): decoding a chunk to a JS
 * string here would mangle a character split between two chunks, and any non-UTF-8 byte.
 */

/** The length of the UTF-8 sequence a lead byte starts; 1 for ASCII and invalid bytes. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

/**
 * How many bytes at the end of `bytes` start a UTF-8 sequence that the chunk doesn't
 * finish (0 when it ends on a character boundary). Invalid bytes count as complete: xterm
 * replaces them, and holding them back would hold them forever.
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const length = bytes.length;
  // A sequence is at most 4 bytes: look back over at most 3 continuation bytes.
  for (let back = 1; back <= Math.min(4, length); back += 1) {
    const byte = bytes[length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation: keep looking for the lead byte
    return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

const encoder = new TextEncoder();
/** SGR 31 (red foreground) … SGR 39 (default foreground): how stderr stands apart. */
export const stderrStart = encoder.encode('\x1b[31m');
export const stderrEnd = encoder.encode('\x1b[39m');

/**
 * Without a tty, stdout and stderr arrive as separate chunks that may interleave anywhere,
 * even inside a character. This keeps each stream's unfinished character until that
 * stream's next chunk, and wraps stderr in red, so the bytes xterm sees are exactly the
 * process's bytes plus the colour codes (nothing dropped or replaced).
 */
export class StreamShaper {
  private readonly carry = { stdout: new Uint8Array(0), stderr: new Uint8Array(0) };

  shape(stream: 'stdout' | 'stderr', chunk: Uint8Array): Uint8Array {
    const held = this.carry[stream];
    const bytes = held.length === 0 ? chunk : concat([held, chunk]);
    const tail = incompleteUtf8Tail(bytes);
    this.carry[stream] = tail === 0 ? new Uint8Array(0) : bytes.slice(bytes.length - tail);
    const complete = tail === 0 ? bytes : bytes.subarray(0, bytes.length - tail);
    if (stream === 'stdout' || complete.length === 0) return complete;
    return concat([stderrStart, complete, stderrEnd]);
  }

  /** What is still held back (the process ended mid-character): shown as it is. */
  flush(): Uint8Array {
    const { stdout, stderr } = this.carry;
    this.carry.stdout = new Uint8Array(0);
    this.carry.stderr = new Uint8Array(0);
    return stderr.length === 0 ? stdout : concat([stdout, stderrStart, stderr, stderrEnd]);
  }
}
