/**
 * `<configDir>/timeline.jsonl`: the recorded events as JSON lines, oldest first, after a
 * first line `{"version":1}`. Written whole and atomically (writeTextFileAtomic), with the
 * oldest events left out so that the file stays under its cap. A line that is not an event
 * (a hand edit, a newer Porthole's kind) is skipped; a file that is not a timeline at all
 * is left alone, and nothing is written over it.
 */
import { readFile } from 'node:fs/promises';
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

  /** Writes the newest events that fit under the cap; resolves once the file is in place. */
  async save(events: readonly TimelineEvent[]): Promise<void> {
    await writeTextFileAtomic(this.path, this.text(events));
  }

  /** save, done before it returns (the core is shutting down). */
  saveSync(events: readonly TimelineEvent[]): void {
    writeTextFileAtomicSync(this.path, this.text(events));
  }

  private text(events: readonly TimelineEvent[]): string {
    if (this.foreign) {
      throw new AppError({
        code: 'failed-precondition',
        message: `${this.path} is not a Porthole timeline, so the timeline is not saved.`,
        hint: 'Move or delete the file; Porthole then writes a new one.',
      });
    }
    const lines: string[] = [];
    let bytes = Buffer.byteLength(`${JSON.stringify(header)}\n`);
    for (let index = events.length - 1; index >= 0; index -= 1) {
      const line = `${JSON.stringify(events[index])}\n`;
      bytes += Buffer.byteLength(line);
      if (bytes > this.maxBytes) break;
      lines.push(line);
    }
    lines.push(`${JSON.stringify(header)}\n`);
    return lines.reverse().join('');
  }
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
