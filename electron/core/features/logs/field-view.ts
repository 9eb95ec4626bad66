/**
 * A view narrowed to the JSON or logfmt lines with a field's value (`level=error`), over
 * any other view (a stream of a log, containers of a merged one): the positions of its
 * matching lines, found by reading each line's fields once and extended as lines arrive.
 * Views and searches are then answered through those positions.
 *
 * Reading a million lines' fields takes seconds, on the thread that serves the UI; but
 * only a line whose text holds the value can have it. So a large range is first searched
 * for the value's bytes (in place, as a search is: a fraction of that), and only those
 * lines are read. A value that JSON may write escaped (quotes, backslashes, non-ASCII)
 * is looked for line by line.
 */
import { matchesField, parseLogFields, type FieldFilter } from '../../../../shared/log-fields';
import type { LogLine, LogSearchQuery, LogSearchResult } from '../../../../shared/model';
import { NumberList } from './columns';
import { maxSearchLimit } from './search';

/** New lines fewer than this are read directly (a follow's growth). */
const directScanLines = 20_000;

/** The view a field filter narrows. */
export interface BaseView {
  total(): number;
  text(index: number): string;
  window(from: number, count: number): LogLine[];
  search(query: LogSearchQuery, limit: number): LogSearchResult;
  /** Changes when the view's positions shift (its oldest lines were dropped). */
  epoch(): number;
}

export class FieldView {
  private positions = new NumberList();
  private scanned = 0;
  private epoch = Number.NaN;

  constructor(private readonly filter: FieldFilter) {}

  /** Brings the positions up to date with the base view. */
  sync(base: BaseView): void {
    const epoch = base.epoch();
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.positions = new NumberList();
      this.scanned = 0;
    }
    const total = base.total();
    const from = this.scanned;
    const matches = (index: number): boolean =>
      matchesField(parseLogFields(base.text(index)), this.filter);
    const searchable =
      this.filter.value !== '' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(this.filter.value);
    const candidates =
      searchable && total - from > directScanLines
        ? base.search({ text: this.filter.value }, maxSearchLimit)
        : undefined;
    if (candidates !== undefined && !candidates.truncated) {
      for (const index of candidates.lines) {
        if (index >= from && index < total && matches(index)) this.positions.push(index);
      }
    } else {
      for (let index = from; index < total; index += 1) {
        if (matches(index)) this.positions.push(index);
      }
    }
    this.scanned = total;
  }

  get total(): number {
    return this.positions.length;
  }

  window(base: BaseView, from: number, count: number): LogLine[] {
    const end = Math.min(this.positions.length, from + count);
    const lines: LogLine[] = [];
    for (let index = from; index < end; index += 1) {
      const line = base.window(this.positions.at(index), 1)[0];
      if (line !== undefined) lines.push({ ...line, index });
    }
    return lines;
  }

  /** The base view's matches that this view shows, as this view's positions. */
  search(base: BaseView, query: LogSearchQuery, limit: number, baseLimit: number): LogSearchResult {
    const found = base.search(query, baseLimit);
    const lines: number[] = [];
    let total = 0;
    for (const index of found.lines) {
      const position = this.positions.lowerBound(index);
      if (this.positions.at(position) !== index) continue;
      total += 1;
      if (lines.length < limit) lines.push(position);
    }
    return { lines, total, truncated: found.truncated || total > lines.length };
  }
}

/** A key for a filter, to keep its view between calls. */
export function fieldKey(filter: FieldFilter): string {
  return `${filter.key}\u0000${filter.value.toLowerCase()}`;
}
