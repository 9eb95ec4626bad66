/**
 * The per-line index of a log, one typed array per field (a million lines cost ~23 MB,
 * not a million objects). Lines are numbered from the start of the log ("absolute"
 * numbers); the oldest ones can be dropped from the front, so slot = line - first.
 */

type Column = Uint8Array | Uint32Array | Float64Array;

function grown<T extends Column>(column: T, capacity: number, from: number, count: number): T {
  const next = new (column.constructor as new (length: number) => T)(capacity);
  next.set(column.subarray(from, from + count));
  return next;
}

export interface LineFields {
  /** Sequence number of the chunk holding the line's (last) record. */
  readonly chunk: number;
  /** Where the record starts in its chunk. */
  readonly start: number;
  /** Length of the timestamp text at `start` (0: a line that is not a CRI record). */
  readonly timeLength: number;
  /** Where the message starts, counted from `start`. */
  readonly messageOffset: number;
  readonly messageLength: number;
  readonly time: number;
  readonly flags: number;
}

export const lineFlags = {
  stderr: 1,
  /** Merged from partial records: the text is kept whole on the side. */
  merged: 2,
  /** Not a CRI record: the whole line is the text. */
  raw: 4,
} as const;

/** Bytes of index per line, for the memory bound. */
export const bytesPerLine = 4 + 4 + 1 + 1 + 4 + 8 + 1;

export class LineColumns {
  /** Absolute number of the first line held. */
  first = 0;
  /** Lines held. */
  count = 0;
  private offset = 0;
  private capacity: number;
  chunk: Uint32Array;
  start: Uint32Array;
  timeLength: Uint8Array;
  messageOffset: Uint8Array;
  messageLength: Uint32Array;
  time: Float64Array;
  flags: Uint8Array;

  constructor(initialCapacity = 1024) {
    this.capacity = initialCapacity;
    this.chunk = new Uint32Array(initialCapacity);
    this.start = new Uint32Array(initialCapacity);
    this.timeLength = new Uint8Array(initialCapacity);
    this.messageOffset = new Uint8Array(initialCapacity);
    this.messageLength = new Uint32Array(initialCapacity);
    this.time = new Float64Array(initialCapacity);
    this.flags = new Uint8Array(initialCapacity);
  }

  /** One past the last line's absolute number. */
  get end(): number {
    return this.first + this.count;
  }

  get memoryBytes(): number {
    return this.capacity * bytesPerLine;
  }

  /** The array slot of an absolute line number (no bounds check). */
  slot(line: number): number {
    return this.offset + line - this.first;
  }

  /** Adds a line (fields as in LineFields, positional: this runs a million times). */
  push(
    chunk: number,
    start: number,
    timeLength: number,
    messageOffset: number,
    messageLength: number,
    time: number,
    flags: number,
  ): void {
    if (this.offset + this.count === this.capacity) this.makeRoom();
    const at = this.offset + this.count;
    this.chunk[at] = chunk;
    this.start[at] = start;
    this.timeLength[at] = timeLength;
    this.messageOffset[at] = messageOffset;
    this.messageLength[at] = messageLength;
    this.time[at] = time;
    this.flags[at] = flags;
    this.count += 1;
  }

  /** Forgets the `lines` oldest lines. */
  dropFront(lines: number): void {
    const dropped = Math.min(lines, this.count);
    this.offset += dropped;
    this.first += dropped;
    this.count -= dropped;
  }

  /** Lines held whose chunk is at most `chunk` (they are at the front: chunks only grow). */
  countThroughChunk(chunk: number): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.chunk[this.offset + middle] ?? 0) <= chunk) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Absolute numbers [from, to) of the lines whose record is in `chunk`. */
  linesOfChunk(chunk: number): [from: number, to: number] {
    const to = this.countThroughChunk(chunk);
    const from = this.countThroughChunk(chunk - 1);
    return [this.first + from, this.first + to];
  }

  private makeRoom(): void {
    // Dropped slots at the front are reused before the arrays grow.
    const capacity = this.count * 2 > this.capacity ? this.capacity * 2 : this.capacity;
    const from = this.offset;
    this.chunk = grown(this.chunk, capacity, from, this.count);
    this.start = grown(this.start, capacity, from, this.count);
    this.timeLength = grown(this.timeLength, capacity, from, this.count);
    this.messageOffset = grown(this.messageOffset, capacity, from, this.count);
    this.messageLength = grown(this.messageLength, capacity, from, this.count);
    this.time = grown(this.time, capacity, from, this.count);
    this.flags = grown(this.flags, capacity, from, this.count);
    this.capacity = capacity;
    this.offset = 0;
  }
}

/** A growable list of numbers (a view's line numbers), droppable from the front. */
export class NumberList {
  private values: Float64Array;
  private offset = 0;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.values = new Float64Array(initialCapacity);
  }

  get memoryBytes(): number {
    return this.values.length * 8;
  }

  at(index: number): number {
    return this.values[this.offset + index] ?? Number.NaN;
  }

  push(value: number): void {
    if (this.offset + this.length === this.values.length) {
      const capacity =
        this.length * 2 > this.values.length ? this.values.length * 2 : this.values.length;
      const next = new Float64Array(capacity);
      next.set(this.values.subarray(this.offset, this.offset + this.length));
      this.values = next;
      this.offset = 0;
    }
    this.values[this.offset + this.length] = value;
    this.length += 1;
  }

  /** The position of the first value ≥ `value` (values ascend). */
  lowerBound(value: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.values[this.offset + middle] ?? 0) < value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  dropFront(count: number): void {
    const dropped = Math.min(count, this.length);
    this.offset += dropped;
    this.length -= dropped;
  }
}
