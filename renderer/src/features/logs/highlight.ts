/**
 * Where a search matches within a line, for highlighting the lines on screen (the core
 * says which lines match; the few visible ones are highlighted here).
 */
import type { LogSearchQuery } from '../../../../shared/model';

export interface Segment {
  readonly text: string;
  readonly match: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A global pattern for the query, or undefined when there is nothing (valid) to find. */
export function highlightPattern(query: LogSearchQuery): RegExp | undefined {
  if (query.text === '') return undefined;
  const flags = query.caseSensitive === true ? 'g' : 'gi';
  try {
    return new RegExp(query.regex === true ? query.text : escapeRegExp(query.text), flags);
  } catch {
    return undefined;
  }
}

/** The line's text cut into matching and other parts (one part when nothing matches). */
export function segments(text: string, pattern: RegExp | undefined): readonly Segment[] {
  if (pattern === undefined) return [{ text, match: false }];
  const parts: Segment[] = [];
  pattern.lastIndex = 0;
  let at = 0;
  for (let found = pattern.exec(text); found !== null; found = pattern.exec(text)) {
    if (found[0] === '') {
      // An empty match (`^`, `a*`) highlights nothing; step past it.
      pattern.lastIndex += 1;
      continue;
    }
    if (found.index > at) parts.push({ text: text.slice(at, found.index), match: false });
    parts.push({ text: found[0], match: true });
    at = found.index + found[0].length;
  }
  if (at < text.length || parts.length === 0) parts.push({ text: text.slice(at), match: false });
  return parts;
}
