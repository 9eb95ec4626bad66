/**
 * A row's output: the first `cap` bytes of each stream kept as text, every byte counted
 * and hashed, so rows with the same output group together even past the cap, and memory
 * stays bounded whatever a command prints.
 */
import { createHash, type Hash } from 'node:crypto';
import type { FanoutOutput } from '../../../../shared/model';

export class CappedOutput {
  private readonly chunks: Uint8Array[] = [];
  private kept = 0;
  private total = 0;
  private readonly hash: Hash = createHash('sha256');

  constructor(private readonly cap: number) {}

  push(data: Uint8Array): void {
    this.total += data.byteLength;
    this.hash.update(data);
    if (this.kept >= this.cap) return;
    const room = this.cap - this.kept;
    const piece = data.byteLength <= room ? data : data.subarray(0, room);
    // A copy: the caller's buffer may be reused (a stream's pooled chunk).
    this.chunks.push(Uint8Array.from(piece));
    this.kept += piece.byteLength;
  }

  get bytes(): number {
    return this.total;
  }

  /** The stream's digest so far (hex); ends the hash, so call it once, at the end. */
  digest(): string {
    return this.hash.digest('hex');
  }

  snapshot(): FanoutOutput {
    return {
      // A multi-byte character cut at the cap becomes one replacement character.
      text: Buffer.concat(this.chunks).toString('utf8'),
      bytes: this.total,
      truncated: this.total > this.kept,
    };
  }
}

export const emptyOutput: FanoutOutput = { text: '', bytes: 0, truncated: false };

/** One digest for a row's exit code and both streams' digests. */
export function rowDigest(exitCode: number, stdout: string, stderr: string): string {
  return createHash('sha256')
    .update(`${exitCode}\n${stdout}\n${stderr}`)
    .digest('hex')
    .slice(0, 32);
}
