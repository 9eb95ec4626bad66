/** Pure helpers for the JSON tree: what a collapsed node says about itself. */

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null' | 'other';

export function jsonKind(value: unknown): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'function':
    case 'symbol':
    case 'undefined':
      return 'other';
  }
  return 'other';
}

export function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  const kind = jsonKind(value);
  return kind === 'object' || kind === 'array';
}

/** `{3 keys}` / `[12 items]`: enough to decide whether to open it. */
export function jsonSummary(value: unknown): string {
  if (Array.isArray(value)) {
    return value.length === 0 ? '[]' : `[${value.length} ${value.length === 1 ? 'item' : 'items'}]`;
  }
  if (value !== null && typeof value === 'object') {
    const count = Object.keys(value).length;
    return count === 0 ? '{}' : `{${count} ${count === 1 ? 'key' : 'keys'}}`;
  }
  return jsonScalar(value);
}

export function jsonScalar(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'undefined';
    case 'symbol':
      return value.toString();
    case 'function':
      return 'function';
    case 'object':
      return value === null ? 'null' : JSON.stringify(value);
  }
}

/** Entries in display order: arrays by index, objects by key as the runtime sent them. */
export function jsonEntries(value: Record<string, unknown> | unknown[]): [string, unknown][] {
  if (Array.isArray(value)) return value.map((item, index) => [String(index), item]);
  return Object.entries(value);
}

/** Pretty JSON for the clipboard; strings stay strings (not re-quoted). */
export function jsonForClipboard(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
