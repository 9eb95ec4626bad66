/**
 * Several logs as one: a k-way merge of their line indexes by CRI timestamp into one
 * ordered index of (source, line) pairs. Nothing is copied or decoded: each log stays in
 * its own store, and the merged index costs 9 bytes a line (a source byte, a line number).
 *
 * Each log is in time order already (one writer per file), so the merge is a heap over
 * each source's next unmerged line. While following, a source that has said nothing
 * lately may still write a line older than another's newest: lines are merged only up to
 * a watermark (`advance(upTo)`), the newest time seen less a small reorder window, and
 * the rest waits until the window passes or the caller flushes (`advance()`). Lines only
 * ever join at the end, so a view's positions stay put while it grows; a line later than
 * the window allows (a clock jump, a stalled node) joins at the end, out of order, rather
 * than being lost.
 */
import { lineFlags, NumberList } from './columns';
import type { LogStore } from './store';

/** What the merge reads of a source: its line index. */
export type MergeSource = Pick<LogStore, 'columns'>;

/**
 * A min-heap of source numbers by (time of their next line, source number); the times
 * are the caller's array, read directly (this runs a million times on open).
 */
class SourceHeap {
  private readonly items: number[] = [];

  constructor(private readonly heads: Float64Array) {}

  get size(): number {
    return this.items.length;
  }

  peek(): number | undefined {
    return this.items[0];
  }

  push(source: number): void {
    const items = this.items;
    items.push(source);
    let at = items.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.less(items[at] ?? 0, items[parent] ?? 0)) break;
      [items[at], items[parent]] = [items[parent] ?? 0, items[at] ?? 0];
      at = parent;
    }
  }

  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let at = 0;
    for (;;) {
      const left = at * 2 + 1;
      const right = left + 1;
      let smallest = at;
      if (left < items.length && this.less(items[left] ?? 0, items[smallest] ?? 0)) smallest = left;
      if (right < items.length && this.less(items[right] ?? 0, items[smallest] ?? 0))
        smallest = right;
      if (smallest === at) return top;
      [items[at], items[smallest]] = [items[smallest] ?? 0, items[at] ?? 0];
      at = smallest;
    }
  }

  private less(a: number, b: number): boolean {
    const ka = this.heads[a] ?? 0;
    const kb = this.heads[b] ?? 0;
    return ka < kb || (ka === kb && a < b);
  }
}

function headOf(heap: SourceHeap, heads: Float64Array): number {
  const top = heap.peek();
  return top === undefined ? Number.POSITIVE_INFINITY : (heads[top] ?? 0);
}

export class MergeIndex {
  /** Merged position → source number. */
  private sourceOf = new Uint8Array(1024);
  /** Merged position → the line's absolute number in its source's store. */
  private lineOf = new NumberList();
  /** Per source: the merged positions of its merged lines, ascending. */
  private positions: NumberList[];
  /** Per source: the absolute line number of `positions[i].at(0)`. */
  private readonly firstMerged: number[];
  /** Per source: its next line not merged yet (absolute). */
  private readonly cursor: number[];
  /** Each store's first line when last compacted. */
  private compactedAt: number[];
  /** Positions removed from the front (their lines were dropped by their stores). */
  private droppedCount = 0;

  constructor(private readonly sources: readonly MergeSource[]) {
    if (sources.length > 255) throw new RangeError('At most 255 logs merge into one.');
    this.positions = sources.map(() => new NumberList());
    this.firstMerged = sources.map((source) => source.columns.first);
    this.cursor = sources.map((source) => source.columns.first);
    this.compactedAt = sources.map((source) => source.columns.first);
  }

  /** Lines merged. */
  get count(): number {
    return this.lineOf.length;
  }

  /** Lines dropped from the front since the start (with their stores' memory bound). */
  get dropped(): number {
    return this.droppedCount;
  }

  get memoryBytes(): number {
    let bytes = this.sourceOf.length + this.lineOf.memoryBytes;
    for (const list of this.positions) bytes += list.memoryBytes;
    return bytes;
  }

  /** The newest time of any line the sources hold, merged or not. */
  latestTime(): number {
    let latest = Number.NEGATIVE_INFINITY;
    this.sources.forEach(({ columns }) => {
      if (columns.end > columns.first) {
        latest = Math.max(latest, columns.time[columns.slot(columns.end - 1)] ?? 0);
      }
    });
    return latest;
  }

  /** Whether some source has lines not merged yet. */
  get pending(): boolean {
    return this.sources.some(({ columns }, i) => (this.cursor[i] ?? 0) < columns.end);
  }

  /**
   * Merges the sources' new lines with a time ≤ `upTo` (all of them without it), in
   * time order. Returns how many joined.
   */
  advance(upTo = Number.POSITIVE_INFINITY): number {
    const before = this.count;
    /** Each source's next line's time. */
    const heads = new Float64Array(this.sources.length);
    const heap = new SourceHeap(heads);
    this.sources.forEach(({ columns }, i) => {
      // A store that dropped lines not merged yet: those are gone.
      if ((this.cursor[i] ?? 0) < columns.first) this.cursor[i] = columns.first;
      const next = this.cursor[i] ?? 0;
      if (next < columns.end) {
        heads[i] = this.timeAt(i, next);
        heap.push(i);
      }
    });
    for (;;) {
      const source = heap.peek();
      if (source === undefined) break;
      const time = heads[source] ?? 0;
      if (time > upTo) break;
      heap.pop();
      const columns = this.sources[source]?.columns;
      if (columns === undefined) continue;
      // This source's lines up to the next source's head go in one run: no heap work.
      const limit = Math.min(
        upTo,
        heap.size === 0 ? Number.POSITIVE_INFINITY : headOf(heap, heads),
      );
      let line = this.cursor[source] ?? 0;
      const end = columns.end;
      do {
        this.push(source, line);
        line += 1;
      } while (line < end && this.runContinues(columns, line, limit, source, heap, heads));
      this.cursor[source] = line;
      if (line < end) {
        heads[source] = this.timeAt(source, line);
        heap.push(source);
      }
    }
    return this.count - before;
  }

  /** A merged position's source and absolute line. */
  at(position: number): { readonly source: number; readonly line: number } {
    return { source: this.sourceOf[position] ?? 0, line: this.lineOf.at(position) };
  }

  sourceAt(position: number): number {
    return this.sourceOf[position] ?? 0;
  }

  /** Whether a merged line is on stderr. */
  isStderr(position: number): boolean {
    const { columns } = this.sources[this.sourceAt(position)] ?? {};
    if (columns === undefined) return false;
    const flags = columns.flags[columns.slot(this.lineOf.at(position))] ?? 0;
    return (flags & lineFlags.stderr) !== 0;
  }

  /** The merged position of a source's absolute line; undefined if not merged (or gone). */
  positionOf(source: number, line: number): number | undefined {
    const list = this.positions[source];
    const offset = line - (this.firstMerged[source] ?? 0);
    if (list === undefined || offset < 0 || offset >= list.length) return undefined;
    return list.at(offset);
  }

  /**
   * Forgets merged lines whose stores dropped them. Stores drop their oldest lines, and a
   * busy source drops sooner than a quiet one, so some may sit behind lines still held:
   * the index is compacted (positions after them move up by as many). Returns how many
   * were removed.
   */
  compact(): number {
    // Nothing dropped since the last time: nothing to look for (this runs on every growth).
    const firsts = this.sources.map(({ columns }) => columns.first);
    if (firsts.every((first, i) => first === this.compactedAt[i])) return 0;
    this.compactedAt = firsts;
    const count = this.count;
    let removed = 0;
    for (let position = 0; position < count; position += 1) {
      const source = this.sourceOf[position] ?? 0;
      if (this.lineOf.at(position) < (this.sources[source]?.columns.first ?? 0)) removed += 1;
    }
    if (removed === 0) return 0;
    const sourceOf = new Uint8Array(Math.max(1024, count - removed));
    const lineOf = new NumberList(Math.max(1024, count - removed));
    const positions = this.sources.map(() => new NumberList());
    let kept = 0;
    for (let position = 0; position < count; position += 1) {
      const source = this.sourceOf[position] ?? 0;
      const line = this.lineOf.at(position);
      if (line < (this.sources[source]?.columns.first ?? 0)) continue;
      if (positions[source]?.length === 0) this.firstMerged[source] = line;
      sourceOf[kept] = source;
      lineOf.push(line);
      positions[source]?.push(kept);
      kept += 1;
    }
    this.sources.forEach((_, i) => {
      if (positions[i]?.length === 0) this.firstMerged[i] = this.cursor[i] ?? 0;
    });
    this.sourceOf = sourceOf;
    this.lineOf = lineOf;
    this.positions = positions;
    this.droppedCount += removed;
    return removed;
  }

  /**
   * Whether a source's next line still comes before every other source's head: earlier,
   * or as early from a source listed before the head's (ties go by source order).
   */
  private runContinues(
    columns: MergeSource['columns'],
    line: number,
    limit: number,
    source: number,
    heap: SourceHeap,
    heads: Float64Array,
  ): boolean {
    const time = columns.time[columns.slot(line)] ?? 0;
    if (time < limit) return true;
    if (time > limit) return false;
    const other = heap.peek();
    // Equal to the limit: the upTo bound (inclusive), or a tie with the next head.
    if (other === undefined || (heads[other] ?? 0) > limit) return true;
    return source < other;
  }

  private timeAt(source: number, line: number): number {
    const columns = this.sources[source]?.columns;
    if (columns === undefined) return 0;
    return columns.time[columns.slot(line)] ?? 0;
  }

  private push(source: number, line: number): void {
    const position = this.lineOf.length;
    if (position === this.sourceOf.length) {
      const next = new Uint8Array(this.sourceOf.length * 2);
      next.set(this.sourceOf);
      this.sourceOf = next;
    }
    this.sourceOf[position] = source;
    this.lineOf.push(line);
    const list = this.positions[source];
    if (list !== undefined) {
      if (list.length === 0) this.firstMerged[source] = line;
      list.push(position);
    }
  }
}
