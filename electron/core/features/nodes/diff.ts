/** Structural equality for the plain data the CRI mappers produce. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  if (aKeys.length !== Object.keys(b).length) return false;
  const aRecord = a as Record<string, unknown>;
  return aKeys.every((key) => Object.hasOwn(bRecord, key) && deepEqual(aRecord[key], bRecord[key]));
}

export interface ListDelta<T> {
  readonly upserted: readonly T[];
  readonly removed: readonly string[];
}

/**
 * What changed between two readings of a list keyed by id: rows that are new or differ
 * in any field, and ids that are gone. Unchanged rows are left out, so the UI re-renders
 * only what moved.
 */
export function diffById<T extends { readonly id: string }>(
  previous: ReadonlyMap<string, T>,
  next: readonly T[],
): ListDelta<T> {
  const upserted: T[] = [];
  const seen = new Set<string>();
  for (const item of next) {
    seen.add(item.id);
    const before = previous.get(item.id);
    if (before === undefined || !deepEqual(before, item)) upserted.push(item);
  }
  const removed = [...previous.keys()].filter((id) => !seen.has(id));
  return { upserted, removed };
}

export function byId<T extends { readonly id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}
