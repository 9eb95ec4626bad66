import type { AppLogEntry, AppLogTail } from '../../../../shared/model';
import type { LogSink } from './logger';

export interface RecentLogLimits {
  /** Entries kept; default 1,000. */
  readonly capacity: number;
  /** Entries one `tail` answer holds at most; default 500. */
  readonly maxEntries: number;
  /** Characters (messages and details) one `tail` answer holds at most; default 256 Ki. */
  readonly maxChars: number;
}

export const defaultRecentLogLimits: RecentLogLimits = {
  capacity: 1_000,
  maxEntries: 500,
  maxChars: 256 * 1024,
};

/**
 * The newest entries, in memory, for Diagnostics: a ring of `capacity` entries (each one
 * bounded by the log), so what it holds stays bounded however much is logged.
 */
export class RecentLog implements LogSink {
  private readonly limits: RecentLogLimits;
  private readonly ring: (AppLogEntry | undefined)[];
  private next = 0;
  private written = 0;

  constructor(limits: Partial<RecentLogLimits> = {}) {
    this.limits = { ...defaultRecentLogLimits, ...limits };
    this.ring = new Array<AppLogEntry | undefined>(this.limits.capacity);
  }

  write(entry: AppLogEntry): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.limits.capacity;
    this.written++;
  }

  /** Up to `count` of the newest entries, oldest first, within the answer's bounds. */
  tail(count: number): Omit<AppLogTail, 'file'> {
    const wanted = Math.min(count, this.limits.maxEntries, this.written, this.limits.capacity);
    const entries: AppLogEntry[] = [];
    let chars = 0;
    for (let back = 1; back <= wanted; back++) {
      const index = (this.next - back + this.limits.capacity) % this.limits.capacity;
      const entry = this.ring[index]!;
      chars += entry.message.length + (entry.detail?.length ?? 0);
      if (chars > this.limits.maxChars && entries.length > 0) break;
      entries.push(entry);
    }
    entries.reverse();
    return { entries, omitted: this.written - entries.length };
  }
}
