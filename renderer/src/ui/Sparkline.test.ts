import { describe, expect, it } from 'vitest';
import { sparklinePath } from './Sparkline';

describe('sparklinePath', () => {
  it('scales a series into the box, the largest value at the top', () => {
    expect(sparklinePath([0, 5, 10], 20, 12)).toBe('M0.0 11.0L10.0 6.0L20.0 1.0');
  });

  it('leaves a gap for missing samples and clamps to the given maximum', () => {
    expect(sparklinePath([1, undefined, 4], 10, 12, 2)).toBe('M0.0 6.0M10.0 1.0');
  });

  it('draws a flat line at the bottom for an all-zero series and nothing for none', () => {
    expect(sparklinePath([0, 0], 10, 10)).toBe('M0.0 9.0L10.0 9.0');
    expect(sparklinePath([], 10, 10)).toBe('');
  });
});
