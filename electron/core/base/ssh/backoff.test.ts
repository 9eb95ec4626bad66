import { describe, expect, it } from 'vitest';
import { backoffDelay, defaultBackoff } from './backoff';

describe('reconnect backoff', () => {
  const options = { ...defaultBackoff, initialDelayMs: 100, maxDelayMs: 1000, jitter: 0.2 };

  it('doubles from the initial delay and stops at the cap', () => {
    const middle = (): number => 0.5; // no jitter
    expect([1, 2, 3, 4, 5, 10].map((n) => backoffDelay(n, options, middle))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('spreads each delay by ±jitter, never beyond the cap', () => {
    expect(backoffDelay(1, options, () => 0)).toBe(80);
    expect(backoffDelay(1, options, () => 1)).toBe(120);
    expect(backoffDelay(10, options, () => 1)).toBe(1000);
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelay(3, options);
      expect(delay).toBeGreaterThanOrEqual(320);
      expect(delay).toBeLessThanOrEqual(480);
    }
  });
});
