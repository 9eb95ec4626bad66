import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes } from './format';

describe('formatAge', () => {
  const now = Date.UTC(2026, 0, 10);
  it.each([
    [0, '0s'],
    [59_000, '59s'],
    [60_000, '1m'],
    [3_599_000, '59m'],
    [3_600_000, '1h'],
    [47 * 3_600_000, '47h'],
    [48 * 3_600_000, '2d'],
  ])('%i ms ago is %s', (ago, expected) => {
    expect(formatAge(now - ago, now)).toBe(expected);
  });
  it('never shows a negative age for clocks that disagree', () => {
    expect(formatAge(now + 5_000, now)).toBe('0s');
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.50 KiB'],
    [10 * 1024 * 1024, '10.0 MiB'],
    [123 * 1024 ** 3, '123 GiB'],
  ])('%i bytes is %s', (bytes, expected) => {
    expect(formatBytes(bytes)).toBe(expected);
  });
  it('shows a dash for values that are not sizes', () => {
    expect(formatBytes(Number.NaN)).toBe('—');
    expect(formatBytes(-1)).toBe('—');
  });
});
