/**
 * One transfer's record as the list shows it: bytes, the rate over the last few seconds,
 * and how it ended. The manager owns the streams; this only counts and describes.
 */
import { toAppErrorData } from '../../../../shared/errors';
import type { FileTransfer } from '../../../../shared/model';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The rate is the bytes moved over this window. */
const rateWindowMs = 3000;
const sampleMs = 100;

export class TransferRecord {
  private readonly info: Mutable<FileTransfer>;
  private readonly samples: { at: number; bytes: number }[] = [];

  constructor(
    info: Omit<FileTransfer, 'state' | 'bytes' | 'rate' | 'startedAt'>,
    private readonly now: () => number = Date.now,
  ) {
    this.info = { ...info, state: 'waiting', bytes: 0, rate: 0, startedAt: now() };
  }

  get id(): string {
    return this.info.transferId;
  }

  get state(): FileTransfer['state'] {
    return this.info.state;
  }

  get bytes(): number {
    return this.info.bytes;
  }

  get ended(): boolean {
    return (
      this.info.state === 'done' || this.info.state === 'failed' || this.info.state === 'cancelled'
    );
  }

  snapshot(): FileTransfer {
    return { ...this.info, rate: this.rate() };
  }

  running(): void {
    if (this.info.state !== 'waiting') return;
    this.info.state = 'running';
    delete this.info.url;
    this.info.startedAt = this.now();
  }

  /** The bytes phase is over; the check runs (see `TransferState`). Once, while running. */
  verifying(): boolean {
    if (this.info.state !== 'running') return false;
    this.info.state = 'verifying';
    this.info.bytesDoneAt = this.now();
    return true;
  }

  count(bytes: number): void {
    this.info.bytes += bytes;
    const at = this.now();
    // One sample per slice of the window (the first is the baseline, never changed): a
    // sample per chunk made the window's array, and its shift, thousands long (0.6 s of
    // the core's thread over a 1 GiB download).
    const last = this.samples[this.samples.length - 1];
    if (last !== undefined && this.samples.length > 1 && at - last.at < sampleMs) {
      last.bytes = this.info.bytes;
    } else this.samples.push({ at, bytes: this.info.bytes });
    while (this.samples.length > 2 && this.samples[0]!.at < at - rateWindowMs) this.samples.shift();
  }

  checksum(sha256: string, checked: FileTransfer['checksum']): void {
    this.info.sha256 = sha256;
    if (checked !== undefined) this.info.checksum = checked;
  }

  /** Final: a later end is ignored. */
  end(state: 'done' | 'failed' | 'cancelled', error?: unknown): boolean {
    if (this.ended) return false;
    this.info.state = state;
    this.info.endedAt = this.now();
    delete this.info.url;
    if (error !== undefined) this.info.error = toAppErrorData(error);
    return true;
  }

  private rate(): number {
    const over = this.info.bytesDoneAt ?? this.info.endedAt;
    if (over !== undefined) {
      // The rate of the bytes phase: the check after it moves no bytes.
      const ms = over - this.info.startedAt;
      return ms > 0 ? Math.round((this.info.bytes * 1000) / ms) : 0;
    }
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (first === undefined || last === undefined) return 0;
    const now = this.now();
    // Idle since the last chunk counts too: a stalled transfer's rate falls.
    const ms = Math.max(now, last.at) - first.at;
    return ms > 0 ? Math.round(((last.bytes - first.bytes) * 1000) / ms) : 0;
  }
}
