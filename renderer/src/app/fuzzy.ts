/**
 * Fuzzy matching for the command palette: the query's characters must appear in order;
 * matches at word starts and runs of consecutive characters score higher, so "gtc" finds
 * "Go to Containers" and "rmc" finds "Remove container".
 */
export interface FuzzyMatch {
  readonly score: number;
  /** Indexes of the matched characters in the text, for highlighting. */
  readonly positions: readonly number[];
}

function isWordStart(text: string, index: number): boolean {
  if (index === 0) return true;
  const previous = text[index - 1] ?? '';
  const current = text[index] ?? '';
  if (/[\s\-_/.:@(]/.test(previous)) return true;
  // camelCase boundaries
  return previous === previous.toLowerCase() && current !== current.toLowerCase();
}

export function fuzzyMatch(query: string, text: string): FuzzyMatch | undefined {
  const needle = query.trim().toLowerCase().replace(/\s+/g, ' ');
  if (needle === '') return { score: 0, positions: [] };
  const haystack = text.toLowerCase();

  // A plain substring is always the best explanation of what the user typed.
  const substringAt = haystack.indexOf(needle);
  if (substringAt >= 0) {
    const positions = Array.from({ length: needle.length }, (_, i) => substringAt + i);
    const score = 1000 - substringAt + (isWordStart(text, substringAt) ? 100 : 0);
    return { score, positions };
  }

  const positions: number[] = [];
  let score = 0;
  let from = 0;
  let previous = -2;
  for (const char of needle) {
    if (char === ' ') continue;
    // Prefer the next word start that has this character; else the next occurrence.
    let at = -1;
    for (let i = from; i < haystack.length; i += 1) {
      if (haystack[i] === char && isWordStart(text, i)) {
        at = i;
        break;
      }
    }
    const next = haystack.indexOf(char, from);
    if (next >= 0 && (at < 0 || next === previous + 1)) at = next;
    if (at < 0) return undefined;
    score += 1;
    if (at === previous + 1) score += 5;
    if (isWordStart(text, at)) score += 8;
    score -= Math.min(3, at - from) * 0.5;
    positions.push(at);
    previous = at;
    from = at + 1;
  }
  return { score, positions };
}

/** Items that match, best first; ties keep their original order. */
export function fuzzyFilter<T>(
  items: readonly T[],
  query: string,
  textOf: (item: T) => string,
): { item: T; match: FuzzyMatch }[] {
  const matched: { item: T; match: FuzzyMatch; order: number }[] = [];
  items.forEach((item, order) => {
    const match = fuzzyMatch(query, textOf(item));
    if (match !== undefined) matched.push({ item, match, order });
  });
  matched.sort((a, b) => b.match.score - a.match.score || a.order - b.order);
  return matched.map(({ item, match }) => ({ item, match }));
}
