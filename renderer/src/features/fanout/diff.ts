/**
 * A side-by-side line diff of two outputs (Myers' O(ND) algorithm): the rows a two-column
 * view draws, each line at most once, changes paired left and right where they line up.
 * Bounded: past `maxEdits` differences it stops and says the outputs differ throughout.
 */

export interface DiffSide {
  /** 1-based line number. */
  readonly line: number;
  readonly text: string;
}

export interface DiffRow {
  readonly kind: 'same' | 'changed' | 'removed' | 'added';
  readonly left?: DiffSide;
  readonly right?: DiffSide;
}

export interface SideBySide {
  readonly rows: readonly DiffRow[];
  /** Lines that differ (removed + added, a changed pair counting as one each side). */
  readonly changes: number;
  /** True when the outputs differed in more than `maxEdits` places and were not diffed. */
  readonly tooDifferent: boolean;
}

export const maxEdits = 2000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  // A final newline ends the last line; it doesn't start another.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

type Op = { readonly kind: 'same' | 'removed' | 'added'; readonly a: number; readonly b: number };

/** The edit script from a to b, or undefined past `limit` edits. */
function myers(a: readonly string[], b: readonly string[], limit: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, limit);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d += 1) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))
          ? (v[offset + k + 1] ?? 0)
          : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a.length, b.length, offset);
    }
  }
  return undefined;
}

function backtrack(trace: readonly Int32Array[], n: number, m: number, offset: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d -= 1) {
    const v = trace[d] as Int32Array;
    const k = x - y;
    const prevK =
      k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0)) ? k + 1 : k - 1;
    const prevX = v[offset + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x -= 1;
      y -= 1;
      ops.push({ kind: 'same', a: x, b: y });
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: 'added', a: x, b: prevY });
      else ops.push({ kind: 'removed', a: prevX, b: y });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

export function sideBySide(left: string, right: string, limit = maxEdits): SideBySide {
  const a = splitLines(left);
  const b = splitLines(right);
  const ops = myers(a, b, limit);
  if (ops === undefined) return { rows: [], changes: a.length + b.length, tooDifferent: true };
  const rows: DiffRow[] = [];
  let changes = 0;
  let index = 0;
  while (index < ops.length) {
    const op = ops[index] as Op;
    if (op.kind === 'same') {
      rows.push({
        kind: 'same',
        left: { line: op.a + 1, text: a[op.a] ?? '' },
        right: { line: op.b + 1, text: b[op.b] ?? '' },
      });
      index += 1;
      continue;
    }
    // A run of removals and additions: pair them up as changed lines, the rest alone.
    const removed: number[] = [];
    const added: number[] = [];
    while (index < ops.length && (ops[index] as Op).kind !== 'same') {
      const edit = ops[index] as Op;
      if (edit.kind === 'removed') removed.push(edit.a);
      else added.push(edit.b);
      index += 1;
    }
    changes += removed.length + added.length;
    for (let pair = 0; pair < Math.max(removed.length, added.length); pair += 1) {
      const l = removed[pair];
      const r = added[pair];
      rows.push({
        kind:
          l !== undefined && r !== undefined ? 'changed' : l !== undefined ? 'removed' : 'added',
        ...(l !== undefined && { left: { line: l + 1, text: a[l] ?? '' } }),
        ...(r !== undefined && { right: { line: r + 1, text: b[r] ?? '' } }),
      });
    }
  }
  return { rows, changes, tooDifferent: false };
}
