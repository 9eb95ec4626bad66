import { describe, expect, it } from 'vitest';
import { sideBySide, splitLines } from './diff';

describe('sideBySide', () => {
  it('pairs a changed line and keeps the same ones', () => {
    const diff = sideBySide('web-1\nweb-1\n', 'web-1\nodd\n');
    expect(diff.tooDifferent).toBe(false);
    expect(diff.rows).toEqual([
      { kind: 'same', left: { line: 1, text: 'web-1' }, right: { line: 1, text: 'web-1' } },
      { kind: 'changed', left: { line: 2, text: 'web-1' }, right: { line: 2, text: 'odd' } },
    ]);
    expect(diff.changes).toBe(2);
  });

  it('shows lines only one side has', () => {
    const diff = sideBySide('a\nb\nc', 'a\nc\nd');
    expect(diff.rows.map((row) => [row.kind, row.left?.text, row.right?.text])).toEqual([
      ['same', 'a', 'a'],
      ['removed', 'b', undefined],
      ['same', 'c', 'c'],
      ['added', undefined, 'd'],
    ]);
  });

  it('is empty for equal outputs, and stops past the edit limit', () => {
    expect(sideBySide('x\n', 'x\n').changes).toBe(0);
    const many = Array.from({ length: 50 }, (_, i) => `l${i}`).join('\n');
    const other = Array.from({ length: 50 }, (_, i) => `r${i}`).join('\n');
    expect(sideBySide(many, other, 10)).toMatchObject({ tooDifferent: true, rows: [] });
    expect(sideBySide(many, other).rows).toHaveLength(50);
  });

  it('splits lines without a phantom last one', () => {
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });
});
