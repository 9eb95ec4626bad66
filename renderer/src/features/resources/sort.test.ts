import { describe, expect, it } from 'vitest';
import type { PodRow } from './model';
import { nextSort, sortRows } from './sort';

const row = (key: string, name: string, createdAt: number, containerCount = 0): PodRow =>
  ({
    key,
    name,
    createdAt,
    containerCount,
    nodeId: 'n',
    namespace: '',
    state: 'ready',
    attempt: 0,
    id: key,
  }) as PodRow;

const rows = [
  row('a', 'web-10', 3000, 1),
  row('b', 'web-9', 1000, 3),
  row('c', 'api', 2000, 2),
  row('d', 'web-9', 1000, 0),
];

describe('sortRows', () => {
  it('sorts names naturally (web-9 before web-10)', () => {
    expect(sortRows('pods', rows, { column: 'name', direction: 'asc' }).map((r) => r.key)).toEqual([
      'c',
      'b',
      'd',
      'a',
    ]);
  });

  it('breaks ties by key, so equal rows never swap between updates', () => {
    expect(sortRows('pods', rows, { column: 'name', direction: 'desc' }).map((r) => r.key)).toEqual(
      ['a', 'b', 'd', 'c'],
    );
  });

  it('sorts age youngest first when ascending', () => {
    expect(sortRows('pods', rows, { column: 'age', direction: 'asc' }).map((r) => r.key)).toEqual([
      'a',
      'c',
      'b',
      'd',
    ]);
  });

  it('sorts numbers as numbers', () => {
    expect(
      sortRows('pods', rows, { column: 'containers', direction: 'desc' }).map((r) => r.key),
    ).toEqual(['b', 'c', 'a', 'd']);
  });

  it('does not touch its input', () => {
    const copy = [...rows];
    sortRows('pods', rows, { column: 'age', direction: 'asc' });
    expect(rows).toEqual(copy);
  });
});

describe('nextSort', () => {
  it('starts ascending and flips on the same column', () => {
    expect(nextSort({ column: 'name', direction: 'asc' }, 'age')).toEqual({
      column: 'age',
      direction: 'asc',
    });
    expect(nextSort({ column: 'age', direction: 'asc' }, 'age')).toEqual({
      column: 'age',
      direction: 'desc',
    });
  });
});
