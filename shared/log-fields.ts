/**
 * Structured log lines: a JSON object or logfmt (`level=info msg="hi" user=42`), read as
 * fields: its level, its message and the rest. One reader for the renderer (which shows
 * the fields) and the core (which filters a view on one: `level=error`).
 */

export interface LogFields {
  readonly format: 'json' | 'logfmt';
  readonly level?: string;
  readonly msg?: string;
  /** The other fields, in the line's order; values as text (JSON values as JSON). */
  readonly rest: readonly (readonly [key: string, value: string])[];
}

export interface FieldFilter {
  readonly key: string;
  readonly value: string;
}

const levelKeys = new Set(['level', 'lvl', 'severity', 'loglevel', 'log.level']);
const msgKeys = new Set(['msg', 'message']);

function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function fromPairs(format: LogFields['format'], pairs: [string, string][]): LogFields {
  let level: string | undefined;
  let msg: string | undefined;
  const rest: [string, string][] = [];
  for (const [key, value] of pairs) {
    const lower = key.toLowerCase();
    if (level === undefined && levelKeys.has(lower)) level = value;
    else if (msg === undefined && msgKeys.has(lower)) msg = value;
    else rest.push([key, value]);
  }
  return {
    format,
    ...(level !== undefined && { level }),
    ...(msg !== undefined && { msg }),
    rest,
  };
}

function parseJson(text: string): LogFields | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return fromPairs(
    'json',
    Object.entries(value as Record<string, unknown>).map(([key, field]) => [key, valueText(field)]),
  );
}

/** logfmt: `key=value` or `key="quoted \" value"` pairs (a bare `key` is `key=true`). */
function parseLogfmt(text: string): LogFields | undefined {
  const pairs: [string, string][] = [];
  let withValue = 0;
  let at = 0;
  const length = text.length;
  while (at < length) {
    while (at < length && text[at] === ' ') at += 1;
    if (at >= length) break;
    const keyStart = at;
    while (at < length && text[at] !== '=' && text[at] !== ' ' && text[at] !== '"') at += 1;
    const key = text.slice(keyStart, at);
    if (key === '' || text[at] === '"') return undefined;
    if (text[at] !== '=') {
      pairs.push([key, 'true']);
      continue;
    }
    at += 1;
    let value = '';
    if (text[at] === '"') {
      at += 1;
      let closed = false;
      while (at < length) {
        const char = text[at] ?? '';
        if (char === '\\' && at + 1 < length) {
          const next = text[at + 1] ?? '';
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          at += 2;
        } else if (char === '"') {
          at += 1;
          closed = true;
          break;
        } else {
          value += char;
          at += 1;
        }
      }
      if (!closed || (at < length && text[at] !== ' ')) return undefined;
    } else {
      const valueStart = at;
      while (at < length && text[at] !== ' ') at += 1;
      value = text.slice(valueStart, at);
      if (value.includes('"')) return undefined;
    }
    pairs.push([key, value]);
    withValue += 1;
  }
  // Prose with an `=` in it is not logfmt: two pairs at least, most of them with values.
  if (withValue < 2 || withValue * 2 < pairs.length) return undefined;
  return fromPairs('logfmt', pairs);
}

/** The line's fields, or undefined for a line that is neither JSON nor logfmt. */
export function parseLogFields(text: string): LogFields | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return trimmed.endsWith('}') ? parseJson(trimmed) : undefined;
  return trimmed.includes('=') ? parseLogfmt(trimmed) : undefined;
}

/** `level=error` as a filter; undefined when it is not `key=value`. */
export function parseFieldFilter(text: string): FieldFilter | undefined {
  const match = /^\s*([^\s=]+)\s*=\s*(.*?)\s*$/.exec(text);
  if (match === null) return undefined;
  return { key: match[1] ?? '', value: match[2] ?? '' };
}

/**
 * Whether a line's field has the value (case-insensitively: `level=error` finds ERROR);
 * `level` and `msg` stand for their usual spellings (lvl, severity, message…).
 */
export function matchesField(fields: LogFields | undefined, filter: FieldFilter): boolean {
  if (fields === undefined) return false;
  const key = filter.key.toLowerCase();
  const wanted = filter.value.toLowerCase();
  if (levelKeys.has(key)) return fields.level?.toLowerCase() === wanted;
  if (msgKeys.has(key)) return fields.msg?.toLowerCase() === wanted;
  return fields.rest.some(([name, value]) => name === filter.key && value.toLowerCase() === wanted);
}
