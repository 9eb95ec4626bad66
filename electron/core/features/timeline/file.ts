/**
 * `<configDir>/timeline.jsonl`: the recorded events as JSON lines, oldest first, after a
 * first line `{"version":1}`. New events are appended to what this process wrote before;
 * once the file would pass its cap, it is written whole and atomically
 * (writeTextFileAtomic) with the newest events that fit in three quarters of the cap, so
 * that a busy fleet (hundreds of events a second) appends a few kilobytes per save rather
 * than rewriting megabytes. A line that is not an event (a hand edit, a newer Porthole's
 * kind, the torn end of an append) is skipped; a file that is not a timeline at all is
 * left alone, and nothing is written over it.
 */
import { appendFileSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../../shared/errors';
import { timelineKinds, type TimelineEvent } from '../../../../shared/model';
import { writeTextFileAtomic, writeTextFileAtomicSync } from '../../base/config';

export const timelineFileName = 'timeline.jsonl';

const header = { version: 1 } as const;

const text = (max: number) => z.string().max(max);

const eventSchema = z.object({
  seq: z.number().int().nonnegative(),
  nodeId: text(4096).min(1),
  time: z.number().nonnegative(),
  seenAt: z.number().nonnegative(),
  kind: z.enum(timelineKinds as [string, ...string[]]),
  source: z.enum(['events', 'polling']),
  podId: text(256),
  podName: text(512),
  namespace: text(512),
  containerId: text(256).optional(),
  containerName: text(512).optional(),
  attempt: z.number().int().nonnegative().optional(),
  exitCode: z.number().int().optional(),
  reason: text(512).optional(),
  message: text(4096).optional(),
});

export interface LoadedTimeline {
  readonly events: TimelineEvent[];
  /** Lines skipped, and why the file could not be read at all. */
  readonly warnings: string[];
}

export class TimelineFile {
  readonly path: string;
  /** The file is not a timeline: it is not written over. */
  private foreign = false;
  /** Undefined until this process wrote the file (or while a write is under way). */
  private written: Written | undefined;
  private readonly lines = new WeakMap<TimelineEvent, Line>();

  constructor(
    configDir: string,
    private readonly maxBytes: number,
  ) {
    this.path = join(configDir, timelineFileName);
  }

  async load(): Promise<LoadedTimeline> {
    let content: string;
    try {
      content = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], warnings: [] };
      this.foreign = true;
      return { events: [], warnings: [`${this.path} could not be read: ${String(error)}`] };
    }
    const lines = content.split('\n').filter((line) => line.trim() !== '');
    const first = parseLine(lines[0] ?? '');
    if (lines.length > 0 && !isHeader(first)) {
      this.foreign = true;
      return {
        events: [],
        warnings: [`${this.path} is not a Porthole timeline: it is left as it is.`],
      };
    }
    const events: TimelineEvent[] = [];
    let skipped = 0;
    for (const line of lines.slice(1)) {
      const parsed = eventSchema.safeParse(parseLine(line));
      if (parsed.success) events.push(parsed.data as TimelineEvent);
      else skipped += 1;
    }
    return {
      events,
      warnings: skipped > 0 ? [`${skipped} unreadable lines of ${this.path} were skipped.`] : [],
    };
  }

  /** Writes the events (the newest that fit under the cap); resolves once they are on disk. */
  async save(events: readonly TimelineEvent[]): Promise<void> {
    const plan = this.plan(events);
    if (plan.append && plan.text === '') return;
    this.written = undefined;
    if (plan.append) await appendFile(this.path, plan.text, 'utf8');
    else await writeTextFileAtomic(this.path, plan.text);
    this.written = plan.written;
  }

  /** save, done before it returns (the core is shutting down). */
  saveSync(events: readonly TimelineEvent[]): void {
    const plan = this.plan(events);
    if (plan.append && plan.text === '') return;
    this.written = undefined;
    if (plan.append) appendFileSync(this.path, plan.text, 'utf8');
    else writeTextFileAtomicSync(this.path, plan.text);
    this.written = plan.written;
  }

  /**
   * The lines to append, when the file holds what this process last wrote, that is still
   * the start of `events`' tail, and they fit under the cap; else the whole file.
   */
  private plan(events: readonly TimelineEvent[]): {
    append: boolean;
    text: string;
    written: Written | undefined;
  } {
    if (this.foreign) {
      throw new AppError({
        code: 'failed-precondition',
        message: `${this.path} is not a Porthole timeline, so the timeline is not saved.`,
        hint: 'Move or delete the file; Porthole then writes a new one.',
      });
    }
    const last = events.at(-1);
    const from = this.appendFrom(events);
    if (from !== undefined && this.written !== undefined) {
      const lines = events.slice(from).map((event) => this.line(event));
      const bytes = this.written.bytes + lines.reduce((sum, line) => sum + line.bytes, 0);
      if (bytes <= this.maxBytes) {
        return {
          append: true,
          text: lines.map((line) => line.text).join(''),
          written: { last: last ?? this.written.last, bytes },
        };
      }
    }
    return this.whole(events);
  }

  /** Where the events not in the file yet begin, if the file can be appended to. */
  private appendFrom(events: readonly TimelineEvent[]): number | undefined {
    const written = this.written;
    if (written === undefined) return undefined;
    // Written with no event (after a clear): whatever is held now came since.
    if (written.last === undefined) return 0;
    // The event written last is still held (not cleared, not dropped): what follows is new.
    for (let index = events.length - 1; index >= 0; index -= 1) {
      const event = events[index];
      if (event === written.last) return index + 1;
      if (event !== undefined && event.seq < written.last.seq) return undefined;
    }
    return undefined;
  }

  /** The newest events that fit in three quarters of the cap, oldest first. */
  private whole(events: readonly TimelineEvent[]): {
    append: false;
    text: string;
    written: Written;
  } {
    const headerLine = `${JSON.stringify(header)}\n`;
    const budget = Math.floor((this.maxBytes * 3) / 4);
    const lines: string[] = [];
    let bytes = Buffer.byteLength(headerLine);
    for (let index = events.length - 1; index >= 0; index -= 1) {
      const event = events[index];
      if (event === undefined) continue;
      const line = this.line(event);
      if (bytes + line.bytes > budget) break;
      bytes += line.bytes;
      lines.push(line.text);
    }
    lines.push(headerLine);
    return {
      append: false,
      text: lines.reverse().join(''),
      written: { last: events.at(-1), bytes },
    };
  }

  /** An event's line, made once: an event does not change once recorded. */
  private line(event: TimelineEvent): Line {
    let line = this.lines.get(event);
    if (line === undefined) {
      const text = `${JSON.stringify(event)}\n`;
      line = { text, bytes: Buffer.byteLength(text) };
      this.lines.set(event, line);
    }
    return line;
  }
}

interface Line {
  readonly text: string;
  readonly bytes: number;
}

/** What this process last wrote: up to which event, and the file's size then. */
interface Written {
  readonly last: TimelineEvent | undefined;
  readonly bytes: number;
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

function isHeader(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { version?: unknown }).version === 1
  );
}
