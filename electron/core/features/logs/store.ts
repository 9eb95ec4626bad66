/**
 * One open log in memory: the file's bytes as read, in chunks, and a typed-array index of
 * its lines (where each starts, its time, its stream). Nothing is decoded until a window
 * of lines is asked for, so a million lines open in the time it takes to find their
 * newlines and parse their headers.
 *
 * Partial records (`P`) are merged into the full one (`F`) that ends them, per stream;
 * the merged text is kept on the side (it spans records, and chunks). Lines that are not
 * CRI records are kept as they are, as stdout text.
 *
 * Memory is bounded: once the chunks, the index and the side texts take more than
 * `maxBytes`, the oldest chunk and its lines are dropped (`dropped` counts them).
 */
import { AppError } from '../../../../shared/errors';
import type { LogLine, LogStream } from '../../../../shared/model';
import { LineColumns, lineFlags, NumberList } from './columns';
import { emptyHeader, newline, parseRecordHeader } from './cri-format';

export interface LogStoreOptions {
  /**
   * Memory bound for the bytes, the index and merged texts together. Default 256 MiB:
   * a million lines of 100 bytes take ~125 MB.
   */
  readonly maxBytes?: number;
  /** Lines older than this (epoch ms) are not kept. */
  readonly since?: number;
  /** Chunks grow up to this size before a new one starts. Default 4 MiB. */
  readonly chunkSize?: number;
}

export const defaultMaxLogBytes = 256 * 1024 * 1024;
const defaultChunkSize = 4 * 1024 * 1024;
/** Reads at least this large are kept as they are when handed over (see `append`). */
const adoptBytes = 1024 * 1024;
/** A line without a newline this long is not a CRI record: it is cut here. */
const maxLineBytes = 1024 * 1024;
/** A partial line merged this far is shown as it is rather than growing further. */
const maxMergedBytes = 4 * 1024 * 1024;

interface Chunk {
  readonly seq: number;
  bytes: Buffer;
  used: number;
  /** A caller's buffer, kept as it is: nothing more is copied into it. */
  readonly adopted?: boolean;
}

interface Pending {
  readonly parts: Buffer[];
  length: number;
  readonly time: number;
  readonly timeText: string;
}

interface Merged {
  readonly text: Buffer;
  readonly timeText: string;
}

/** Which lines a view shows: both streams, or one. */
export type StreamSelection = 'all' | LogStream;

export function toStreamSelection(streams: readonly LogStream[] | undefined): StreamSelection {
  if (streams === undefined) return 'all';
  if (!Array.isArray(streams) || streams.some((s) => s !== 'stdout' && s !== 'stderr')) {
    throw new AppError({
      code: 'invalid-argument',
      message: 'view.streams must list "stdout", "stderr" or both.',
    });
  }
  const stdout = streams.includes('stdout');
  const stderr = streams.includes('stderr');
  if (stdout && stderr) return 'all';
  if (stdout) return 'stdout';
  if (stderr) return 'stderr';
  throw new AppError({
    code: 'invalid-argument',
    message: 'view.streams must name at least one stream.',
  });
}

/** A stream's line numbers, extended as lines arrive and asked for. */
class StreamIndex {
  readonly lines = new NumberList();
  /** Lines up to here (absolute) are indexed. */
  scanned = 0;

  constructor(readonly stderr: boolean) {}
}

export class LogStore {
  readonly columns = new LineColumns();
  private readonly chunks: Chunk[] = [];
  private nextChunkSeq = 0;
  private readonly merged = new Map<number, Merged>();
  private mergedBytes = 0;
  private readonly pending: [stdout: Pending | undefined, stderr: Pending | undefined] = [
    undefined,
    undefined,
  ];
  /** The end of the last read that had no newline yet. */
  private carry: Buffer | undefined;
  private readonly streamIndexes = new Map<LogStream, StreamIndex>();
  /** The time of the last line with one, for lines that have none. */
  private lastTime = 0;
  private sinceReached: boolean;
  private readonly header = emptyHeader();
  private readonly maxBytes: number;
  private readonly chunkSize: number;
  private readonly since: number | undefined;

  constructor(options: LogStoreOptions = {}) {
    this.maxBytes = options.maxBytes ?? defaultMaxLogBytes;
    this.chunkSize = options.chunkSize ?? defaultChunkSize;
    this.since = options.since;
    this.sinceReached = options.since === undefined;
  }

  /** Lines held (both streams). */
  get lineCount(): number {
    return this.columns.count;
  }

  /** Lines dropped from the start to stay within the memory bound. */
  get dropped(): number {
    return this.columns.first;
  }

  get memoryBytes(): number {
    let bytes = this.columns.memoryBytes + this.mergedBytes;
    for (const chunk of this.chunks) bytes += chunk.bytes.length;
    for (const index of this.streamIndexes.values()) bytes += index.lines.memoryBytes;
    return bytes;
  }

  /**
   * The next bytes of the file, in order; a read may end in the middle of a line. With
   * `owned`, the caller hands the buffer over (it will neither change nor reuse it): a
   * large read is then kept as it is rather than copied.
   */
  append(bytes: Uint8Array, owned = false): void {
    if (bytes.length === 0) return;
    let input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    if (this.carry !== undefined) {
      // Only the line the carry begins is joined (not the whole read: that is a copy of
      // every byte of the file).
      const first = input.indexOf(newline);
      const carry = this.carry;
      this.carry = undefined;
      if (first < 0) {
        this.keepCarry(Buffer.concat([carry, input]));
        this.enforceBound();
        return;
      }
      this.storeLines(Buffer.concat([carry, input.subarray(0, first + 1)]));
      input = input.subarray(first + 1);
    }
    const last = input.lastIndexOf(newline);
    const complete = last + 1;
    if (complete >= adoptBytes && owned && (this.since === undefined || this.sinceReached)) {
      this.adopt(input.subarray(0, complete));
    } else if (complete > 0) {
      this.storeLines(input.subarray(0, complete));
    }
    if (complete < input.length) this.keepCarry(input.subarray(complete));
    this.enforceBound();
  }

  /** Keeps the start of a line until its newline arrives. */
  private keepCarry(rest: Buffer): void {
    if (rest.length >= maxLineBytes) {
      // No record is this long: keep it as a line of its own rather than grow forever.
      this.storeLines(Buffer.concat([rest, Buffer.of(newline)]));
    } else {
      // A copy: the caller may reuse its buffer.
      this.carry = Buffer.from(rest);
    }
  }

  /**
   * The file ended for good (rotated away, truncated, or read to its end without
   * following): a last line without a newline is a line all the same.
   */
  endOfFile(): void {
    const rest = this.carry;
    this.carry = undefined;
    if (rest !== undefined) this.storeLines(Buffer.concat([rest, Buffer.of(newline)]));
    this.enforceBound();
  }

  /** No more is coming: partial lines whose end never came are shown as they are. */
  finish(): void {
    this.endOfFile();
    for (const stream of [0, 1] as const) {
      const pending = this.pending[stream];
      if (pending === undefined) continue;
      this.pending[stream] = undefined;
      this.pushMerged(pending, stream === 1, this.tailChunk().seq);
    }
    this.enforceBound();
  }

  /** Lines in a view now. */
  total(selection: StreamSelection): number {
    if (selection === 'all') return this.columns.count;
    return this.streamIndex(selection).lines.length;
  }

  /** The absolute line number of a view's index (no bounds check). */
  lineAt(selection: StreamSelection, index: number): number {
    if (selection === 'all') return this.columns.first + index;
    return this.streamIndex(selection).lines.at(index);
  }

  /** The view index of an absolute line number that the view shows. */
  indexOf(selection: StreamSelection, line: number): number {
    if (selection === 'all') return line - this.columns.first;
    return this.streamIndex(selection).lines.lowerBound(line);
  }

  /** Whether an absolute line is in the view. */
  shows(selection: StreamSelection, line: number): boolean {
    if (selection === 'all') return true;
    const stderr = ((this.columns.flags[this.columns.slot(line)] ?? 0) & lineFlags.stderr) !== 0;
    return stderr === (selection === 'stderr');
  }

  /** Lines `from`… of a view, decoded; at most `count`. */
  window(selection: StreamSelection, from: number, count: number): LogLine[] {
    const total = this.total(selection);
    const end = Math.min(total, from + count);
    const lines: LogLine[] = [];
    for (let index = from; index < end; index += 1) {
      lines.push(this.decode(this.lineAt(selection, index), index));
    }
    return lines;
  }

  /** One line as the contract carries it. */
  decode(line: number, index: number): LogLine {
    const columns = this.columns;
    const slot = columns.slot(line);
    const flags = columns.flags[slot] ?? 0;
    const stream: LogStream = (flags & lineFlags.stderr) !== 0 ? 'stderr' : 'stdout';
    const time = columns.time[slot] ?? 0;
    if ((flags & lineFlags.merged) !== 0) {
      const merged = this.merged.get(line);
      return {
        index,
        time,
        timeText: merged?.timeText ?? '',
        stream,
        text: merged?.text.toString('utf8') ?? '',
      };
    }
    const chunk = this.chunkBySeq(columns.chunk[slot] ?? 0);
    const start = columns.start[slot] ?? 0;
    const messageStart = start + (columns.messageOffset[slot] ?? 0);
    const bytes = chunk?.bytes;
    return {
      index,
      time,
      timeText: bytes?.toString('latin1', start, start + (columns.timeLength[slot] ?? 0)) ?? '',
      stream,
      text:
        bytes?.toString('utf8', messageStart, messageStart + (columns.messageLength[slot] ?? 0)) ??
        '',
    };
  }

  /** The text of a merged line (undefined for the others). */
  mergedText(line: number): Buffer | undefined {
    return this.merged.get(line)?.text;
  }

  /** Every chunk with the bytes it holds, oldest first (for searching in place). */
  *chunkViews(): Generator<{ readonly seq: number; readonly bytes: Buffer }> {
    for (const chunk of this.chunks)
      yield { seq: chunk.seq, bytes: chunk.bytes.subarray(0, chunk.used) };
  }

  /** Absolute numbers of merged lines held, ascending. */
  mergedLines(): number[] {
    return [...this.merged.keys()].sort((a, b) => a - b);
  }

  // ---- storing ------------------------------------------------------------------

  private tailChunk(): Chunk {
    const tail = this.chunks.at(-1);
    return tail === undefined || tail.adopted === true ? this.newChunk() : tail;
  }

  /** Whole lines in a buffer of the caller's, kept as a chunk of their own. */
  private adopt(lines: Buffer): void {
    const chunk: Chunk = {
      seq: this.nextChunkSeq,
      bytes: lines,
      used: lines.length,
      adopted: true,
    };
    this.nextChunkSeq += 1;
    this.chunks.push(chunk);
    this.indexLines(chunk, 0, lines.length);
  }

  private newChunk(): Chunk {
    const chunk: Chunk = { seq: this.nextChunkSeq, bytes: Buffer.alloc(0), used: 0 };
    this.nextChunkSeq += 1;
    this.chunks.push(chunk);
    return chunk;
  }

  /**
   * Copies whole lines into the tail chunk, growing it up to the chunk size, or into a new
   * one; then indexes them where they now are.
   */
  private storeLines(input: Buffer): void {
    let lines = this.since === undefined || this.sinceReached ? input : this.skipBeforeSince(input);
    while (lines.length > 0) {
      let chunk = this.tailChunk();
      const room = this.chunkSize - chunk.used;
      let take = lines.length;
      if (take > room) {
        // Fill this chunk with the lines that fit; the rest go to a new one.
        const cut = room > 0 ? lines.lastIndexOf(newline, room - 1) : -1;
        if (cut >= 0) {
          take = cut + 1;
        } else {
          if (chunk.used > 0) chunk = this.newChunk();
          // At least one line, however long.
          const fit =
            lines.length <= this.chunkSize
              ? lines.length
              : lines.lastIndexOf(newline, this.chunkSize - 1) + 1;
          take = fit > 0 ? fit : lines.indexOf(newline) + 1;
        }
      }
      this.ensureCapacity(chunk, chunk.used + take);
      const at = chunk.used;
      lines.copy(chunk.bytes, at, 0, take);
      chunk.used += take;
      this.indexLines(chunk, at, chunk.used);
      lines = lines.subarray(take);
    }
  }

  private ensureCapacity(chunk: Chunk, needed: number): void {
    if (chunk.bytes.length >= needed) return;
    // Small logs stay small: the tail chunk doubles as lines arrive, up to the chunk size.
    const size = Math.max(
      needed,
      Math.min(this.chunkSize, Math.max(64 * 1024, chunk.bytes.length * 2)),
    );
    const bytes = Buffer.allocUnsafe(size);
    chunk.bytes.copy(bytes, 0, 0, chunk.used);
    chunk.bytes = bytes;
  }

  /** Drops the lines before `since` at the start of the log (they are in time order). */
  private skipBeforeSince(input: Buffer): Buffer {
    const since = this.since ?? 0;
    let start = 0;
    while (start < input.length) {
      const end = input.indexOf(newline, start);
      const header = parseRecordHeader(input, start, end);
      if (header !== undefined && header.time >= since) {
        this.sinceReached = true;
        return input.subarray(start);
      }
      start = end + 1;
    }
    return input.subarray(input.length);
  }

  /** Indexes the lines in `chunk.bytes[from, to)`, each ending in a newline. */
  private indexLines(chunk: Chunk, from: number, to: number): void {
    const bytes = chunk.bytes;
    const columns = this.columns;
    const since = this.since;
    const reused = this.header;
    let start = from;
    while (start < to) {
      const end = bytes.indexOf(newline, start);
      const header = parseRecordHeader(bytes, start, end, reused);
      if (header === undefined) {
        // Not a CRI record: kept as it is, at the time of the line before it.
        if (since === undefined || this.lastTime >= since) {
          columns.push(chunk.seq, start, 0, 0, end - start, this.lastTime, lineFlags.raw);
        }
      } else {
        this.lastTime = header.time;
        const stream = header.stderr ? 1 : 0;
        const pending = this.pending[stream];
        if (header.partial || pending !== undefined) {
          this.mergePart(chunk, start, end, header, stream);
        } else if (since === undefined || header.time >= since) {
          columns.push(
            chunk.seq,
            start,
            header.timeEnd - start,
            header.message - start,
            end - header.message,
            header.time,
            header.stderr ? lineFlags.stderr : 0,
          );
        }
      }
      start = end + 1;
    }
  }

  private mergePart(
    chunk: Chunk,
    start: number,
    end: number,
    header: { time: number; timeEnd: number; message: number; partial: boolean },
    stream: 0 | 1,
  ): void {
    const part = Buffer.from(chunk.bytes.subarray(header.message, end));
    let pending = this.pending[stream];
    if (pending === undefined) {
      pending = {
        parts: [],
        length: 0,
        time: header.time,
        timeText: chunk.bytes.toString('latin1', start, header.timeEnd),
      };
      this.pending[stream] = pending;
    }
    pending.parts.push(part);
    pending.length += part.length;
    this.mergedBytes += part.length;
    if (!header.partial || pending.length >= maxMergedBytes) {
      this.pending[stream] = undefined;
      this.pushMerged(pending, stream === 1, chunk.seq);
    }
  }

  private pushMerged(pending: Pending, stderr: boolean, chunk: number): void {
    if (this.since !== undefined && pending.time < this.since) {
      this.mergedBytes -= pending.length;
      return;
    }
    const line = this.columns.end;
    this.merged.set(line, { text: Buffer.concat(pending.parts), timeText: pending.timeText });
    this.columns.push(
      chunk,
      0,
      0,
      0,
      pending.length,
      pending.time,
      lineFlags.merged | (stderr ? lineFlags.stderr : 0),
    );
  }

  // ---- views and the memory bound ---------------------------------------------------

  private streamIndex(stream: LogStream): StreamIndex {
    let index = this.streamIndexes.get(stream);
    if (index === undefined) {
      index = new StreamIndex(stream === 'stderr');
      index.scanned = this.columns.first;
      this.streamIndexes.set(stream, index);
    }
    // Built on first use and extended with what arrived since: most logs are never
    // filtered, and the ones that are pay once.
    const columns = this.columns;
    const end = columns.end;
    if (index.scanned < end) {
      const wanted = index.stderr ? lineFlags.stderr : 0;
      for (let line = Math.max(index.scanned, columns.first); line < end; line += 1) {
        if (((columns.flags[columns.slot(line)] ?? 0) & lineFlags.stderr) === wanted) {
          index.lines.push(line);
        }
      }
      index.scanned = end;
    }
    return index;
  }

  private chunkBySeq(seq: number): Chunk | undefined {
    const first = this.chunks[0];
    if (first === undefined) return undefined;
    // Chunks are numbered consecutively; only the oldest are ever removed.
    return this.chunks[seq - first.seq];
  }

  private enforceBound(): void {
    while (this.chunks.length > 1 && this.memoryBytes > this.maxBytes) {
      const oldest = this.chunks.shift();
      if (oldest === undefined) break;
      const lines = this.columns.countThroughChunk(oldest.seq);
      const firstKept = this.columns.first + lines;
      for (const line of this.mergedLines()) {
        if (line >= firstKept) break;
        this.mergedBytes -= this.merged.get(line)?.text.length ?? 0;
        this.merged.delete(line);
      }
      this.columns.dropFront(lines);
      for (const index of this.streamIndexes.values()) {
        index.lines.dropFront(index.lines.lowerBound(firstKept));
      }
    }
  }
}
