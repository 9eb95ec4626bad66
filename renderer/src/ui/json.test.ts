import { describe, expect, it } from 'vitest';
import { jsonEntries, jsonForClipboard, jsonKind, jsonScalar, jsonSummary } from './json';

describe('json helpers', () => {
  it('summarises containers', () => {
    expect(jsonSummary({ a: 1, b: 2 })).toBe('{2 keys}');
    expect(jsonSummary({ a: 1 })).toBe('{1 key}');
    expect(jsonSummary([1])).toBe('[1 item]');
    expect(jsonSummary([])).toBe('[]');
    expect(jsonSummary({})).toBe('{}');
  });

  it('shows scalars as JSON', () => {
    expect(jsonScalar('x')).toBe('"x"');
    expect(jsonScalar(null)).toBe('null');
    expect(jsonScalar(3)).toBe('3');
    expect(jsonKind(true)).toBe('boolean');
  });

  it('lists entries in order', () => {
    expect(jsonEntries(['a', 'b'])).toEqual([
      ['0', 'a'],
      ['1', 'b'],
    ]);
  });

  it('copies pretty JSON, and text as it is', () => {
    expect(jsonForClipboard({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(jsonForClipboard('plain')).toBe('plain');
  });
});
