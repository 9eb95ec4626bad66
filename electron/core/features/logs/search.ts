/**
 * Searching an open log where its bytes are, without decoding every line.
 *
 * Plain text (the common case) is found with Buffer.indexOf over the stored chunks, and a
 * match is mapped to its line by walking the line index alongside (matches come in
 * order): a match in a record's header (its timestamp, its stream) is not a match.
 * Case-insensitive plain text searches an ASCII case-folded copy of the chunks, made on
 * the first search and kept while searches go on (freed after `foldIdleMs` without one):
 * up to the log's size again, for as long as someone is searching.
 *
 * An empty search finds nothing but starts making that copy in the background, so a UI
 * can ask for it when the user starts typing a query.
 *
 * Regular expressions, and case-insensitive text with non-ASCII letters (whose case
 * can't be folded byte by byte), test each line's decoded text instead: slower, still
 * bounded by `timeBudgetMs` (the result says `truncated` when the budget ran out).
 *
 * A user's regular expression runs on RE2JS, a linear-time engine (RE2's syntax and
 * guarantees), not on V8's backtracking one: there `(a+)+$` over one long line of a's
 * takes exponential time, on the thread that serves the whole UI, and no time budget
 * checked between lines can stop a single test. RE2 has no lookaround or backreferences,
 * which is the price of that bound.
 */
import { RE2JS } from 're2js';
import { AppError } from '../../../../shared/errors';
import type { LogSearchQuery, LogSearchResult } from '../../../../shared/model';
import { lineFlags } from './columns';
import type { LogStore, StreamSelection } from './store';

export const defaultSearchLimit = 10_000;
/** Largest compiled regular expression searched with; see toMatcher. */
export const maxRegexProgram = 2000;
export const maxSearchLimit = 1_000_000;

export interface LogSearcherOptions {
  /** How long the folded copy is kept after the last search. Default 30 s. */
  readonly foldIdleMs?: number;
  /** Line-by-line searches stop after this long. Default 5 s. */
  readonly timeBudgetMs?: number;
}

/** Folds A–Z to a–z, four bytes at a time; other bytes (UTF-8 included) stay. */
function foldInto(source: Uint8Array, target: Uint8Array, from: number, to: number): void {
  let at = from;
  // Byte by byte up to a 4-byte boundary of both arrays' underlying memory.
  while (at < to && (source.byteOffset + at) % 4 !== 0) {
    const byte = source[at] ?? 0;
    target[at] = byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
    at += 1;
  }
  const aligned = (target.byteOffset + at) % 4 === 0;
  if (aligned) {
    const words = Math.floor((to - at) / 4);
    // Int32: values stay small integers for V8 (Uint32 above 2^31 would be doubles).
    const input = new Int32Array(source.buffer, source.byteOffset + at, words);
    const output = new Int32Array(target.buffer, target.byteOffset + at, words);
    for (let i = 0; i < words; i += 1) {
      const word = input[i] as number;
      const low = word & 0x7f7f7f7f;
      // High bit of each byte: ≥ 'A' (0x41), and not > 'Z' (0x5a), for bytes below 0x80.
      const upper = (low + 0x3f3f3f3f) & ~(low + 0x25252525) & ~word & 0x80808080;
      output[i] = word | (upper >>> 2);
    }
    at += words * 4;
  }
  while (at < to) {
    const byte = source[at] ?? 0;
    target[at] = byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
    at += 1;
  }
}

export function foldAscii(bytes: Uint8Array): Buffer {
  const folded = Buffer.allocUnsafe(bytes.length);
  foldInto(bytes, folded, 0, bytes.length);
  return folded;
}

interface Folded {
  source: Buffer;
  bytes: Buffer;
  used: number;
}

type Matcher =
  | { readonly kind: 'bytes'; readonly needle: Buffer; readonly folded: boolean }
  | { readonly kind: 'lines'; readonly test: (text: string) => boolean };

/** Whether folding bytes can't make this text case-insensitive (é vs É…). */
function hasNonAsciiCase(text: string): boolean {
  for (const char of text) {
    if (char.charCodeAt(0) < 0x80) continue;
    if (char.toLowerCase() !== char.toUpperCase()) return true;
  }
  return false;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function toMatcher(query: LogSearchQuery): Matcher {
  if (typeof query !== 'object' || query === null || typeof query.text !== 'string') {
    throw new AppError({ code: 'invalid-argument', message: 'query.text must be a string.' });
  }
  if (query.text.length > 4096) {
    throw new AppError({ code: 'invalid-argument', message: 'The search text is too long.' });
  }
  const caseSensitive = query.caseSensitive === true;
  if (query.regex === true) {
    let pattern: RE2JS;
    try {
      pattern = RE2JS.compile(query.text, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
    } catch (error) {
      throw new AppError({
        code: 'invalid-argument',
        message: 'That is not a regular expression Porthole can search with.',
        detail: error instanceof Error ? error.message : String(error),
        hint: 'Search uses RE2 syntax, which runs in linear time: no lookahead, lookbehind or backreferences. Turn off "regex" to search for the text as it is.',
      });
    }
    // Linear in the line, but times the program's size: `[^x]{1000}` repeated makes a
    // program of 300,000 steps, seconds per long line. Real searches need a few dozen.
    if (pattern.programSize() > maxRegexProgram) {
      throw new AppError({
        code: 'invalid-argument',
        message: `That regular expression is too complex to search with (${pattern.programSize()} steps; at most ${maxRegexProgram}).`,
        hint: 'Use fewer or smaller counted repetitions ({n}) and character classes.',
      });
    }
    return { kind: 'lines', test: (text) => pattern.test(text) };
  }
  if (!caseSensitive && hasNonAsciiCase(query.text)) {
    const pattern = new RegExp(escapeRegExp(query.text), 'i');
    return { kind: 'lines', test: (text) => pattern.test(text) };
  }
  const needle = Buffer.from(query.text, 'utf8');
  return caseSensitive
    ? { kind: 'bytes', needle, folded: false }
    : { kind: 'bytes', needle: foldAscii(needle), folded: true };
}

/** Collects matching lines in order: the first `limit` kept, all counted. */
class Matches {
  readonly lines: number[] = [];
  total = 0;

  constructor(private readonly limit: number) {}

  add(line: number): void {
    this.total += 1;
    if (this.lines.length < this.limit) this.lines.push(line);
  }
}

export class LogSearcher {
  private readonly folded = new Map<number, Folded>();
  private idleTimer: NodeJS.Timeout | undefined;
  private preparing: NodeJS.Immediate | undefined;
  private readonly foldIdleMs: number;
  private readonly timeBudgetMs: number;

  constructor(
    private readonly store: LogStore,
    options: LogSearcherOptions = {},
  ) {
    this.foldIdleMs = options.foldIdleMs ?? 30_000;
    this.timeBudgetMs = options.timeBudgetMs ?? 5_000;
  }

  search(selection: StreamSelection, query: LogSearchQuery, limit: number): LogSearchResult {
    const matcher = toMatcher(query);
    if (query.text === '') {
      // Nothing to find: someone is about to search (the search box got focus).
      this.prepare();
      return { lines: [], total: 0, truncated: false };
    }
    const matches = new Matches(limit);
    let outOfTime = false;
    if (matcher.kind === 'bytes') {
      this.searchBytes(selection, matcher.needle, matcher.folded, matches);
    } else {
      outOfTime = this.searchLines(selection, matcher.test, matches);
    }
    const lines = matches.lines.map((line) => this.store.indexOf(selection, line));
    return { lines, total: matches.total, truncated: outOfTime || matches.total > lines.length };
  }

  /**
   * Makes the folded copy in the background, a chunk per turn of the event loop, so the
   * first case-insensitive search need not: the user is still typing it.
   */
  prepare(): void {
    this.touch();
    if (this.preparing !== undefined) return;
    const chunks = [...this.store.chunkViews()];
    const step = (): void => {
      const chunk = chunks.shift();
      if (chunk === undefined) {
        this.preparing = undefined;
        this.touch();
        return;
      }
      this.foldedChunk(chunk.seq, chunk.bytes);
      this.preparing = setImmediate(step);
    };
    this.preparing = setImmediate(step);
  }

  dispose(): void {
    if (this.preparing !== undefined) clearImmediate(this.preparing);
    this.preparing = undefined;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.folded.clear();
  }

  private searchBytes(
    selection: StreamSelection,
    needle: Buffer,
    folded: boolean,
    matches: Matches,
  ): void {
    const store = this.store;
    const columns = store.columns;
    // A line can't hold a newline, and a match must fit in one line.
    if (needle.includes(0x0a)) return;
    const mergedHits: number[] = [];
    const mergedLines = store.mergedLines();
    // Merged lines are searched apart and merged in order; without any (the usual case)
    // matches go straight to the result.
    const hits = mergedLines.length === 0 ? matches : new Matches(Number.MAX_SAFE_INTEGER);
    for (const chunk of store.chunkViews()) {
      const haystack = folded ? this.foldedChunk(chunk.seq, chunk.bytes) : chunk.bytes;
      const [firstLine, endLine] = columns.linesOfChunk(chunk.seq);
      let line = firstLine;
      let from = 0;
      while (line < endLine) {
        const at = haystack.indexOf(needle, from);
        if (at < 0) break;
        // The first line whose record doesn't end before the match.
        let slot = columns.slot(line);
        while (
          line < endLine &&
          (((columns.flags[slot] ?? 0) & lineFlags.merged) !== 0 ||
            (columns.start[slot] ?? 0) +
              (columns.messageOffset[slot] ?? 0) +
              (columns.messageLength[slot] ?? 0) <=
              at)
        ) {
          line += 1;
          slot += 1;
        }
        if (line >= endLine) break;
        const messageStart = (columns.start[slot] ?? 0) + (columns.messageOffset[slot] ?? 0);
        const messageEnd = messageStart + (columns.messageLength[slot] ?? 0);
        if (at < messageStart) {
          // In a header, or in the records of a merged line (searched on the side).
          from = messageStart;
          continue;
        }
        if (at + needle.length <= messageEnd && store.shows(selection, line)) hits.add(line);
        from = messageEnd + 1;
        line += 1;
      }
    }
    for (const line of mergedLines) {
      if (!store.shows(selection, line)) continue;
      const text = store.mergedText(line);
      if (text === undefined) continue;
      if ((folded ? foldAscii(text) : text).includes(needle)) mergedHits.push(line);
    }
    if (hits !== matches) for (const line of mergeSorted(hits.lines, mergedHits)) matches.add(line);
    this.touch();
  }

  private searchLines(
    selection: StreamSelection,
    test: (text: string) => boolean,
    matches: Matches,
  ): boolean {
    const store = this.store;
    const total = store.total(selection);
    const deadline = performance.now() + this.timeBudgetMs;
    for (let index = 0; index < total; index += 1) {
      // Often enough that one slow test per line (a long line, a big pattern) can't run
      // far past the budget; rarely enough to cost nothing on ordinary lines.
      if ((index & 0xf) === 0 && performance.now() > deadline) return true;
      const line = store.lineAt(selection, index);
      if (test(store.decode(line, index).text)) matches.add(line);
    }
    return false;
  }

  /** The folded copy of a chunk, brought up to date with what was appended since. */
  private foldedChunk(seq: number, bytes: Buffer): Buffer {
    let entry = this.folded.get(seq);
    if (entry === undefined || entry.source.buffer !== bytes.buffer) {
      // New, or the tail chunk grew into a new buffer: fold from scratch.
      entry = { source: bytes, bytes: Buffer.allocUnsafe(bytes.buffer.byteLength), used: 0 };
      this.folded.set(seq, entry);
    }
    if (entry.used < bytes.length) {
      foldInto(bytes, entry.bytes, entry.used, bytes.length);
      entry.used = bytes.length;
    }
    entry.source = bytes;
    return entry.bytes.subarray(0, bytes.length);
  }

  /** Keeps the folded copies while searches go on; forgets dropped chunks. */
  private touch(): void {
    const live = new Set<number>();
    for (const chunk of this.store.chunkViews()) live.add(chunk.seq);
    for (const seq of this.folded.keys()) if (!live.has(seq)) this.folded.delete(seq);
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.folded.clear(), this.foldIdleMs);
    this.idleTimer.unref();
  }
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  if (b.length === 0) return a as number[];
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x < y)) {
      out.push(x as number);
      i += 1;
    } else {
      out.push(y);
      j += 1;
    }
  }
  return out;
}
