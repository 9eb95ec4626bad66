import { describe, expect, it } from 'vitest';
import { fittingColumns, gridTemplate } from './VirtualTable';

const columns = [
  { id: 'name', width: 200, grow: 2 },
  { id: 'id', width: 120, priority: 10 },
  { id: 'age', width: 60, priority: 60 },
  { id: 'state', width: 100 },
];

describe('fittingColumns', () => {
  it('keeps every column when they fit', () => {
    expect(fittingColumns(columns, 480)).toBe(columns);
  });

  it('drops the lowest priority first, never the unprioritised', () => {
    expect(fittingColumns(columns, 400).map((c) => c.id)).toEqual(['name', 'age', 'state']);
    expect(fittingColumns(columns, 100).map((c) => c.id)).toEqual(['name', 'state']);
  });
});

describe('gridTemplate', () => {
  it('makes growing and fixed tracks', () => {
    expect(gridTemplate(columns)).toBe('minmax(200px, 2fr) 120px 60px 100px');
  });
});
