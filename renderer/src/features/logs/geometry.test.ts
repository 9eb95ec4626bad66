import { describe, expect, it } from 'vitest';
import { lineHeight, scrollGeometry } from './LogList';

describe('scrollGeometry', () => {
  it('maps pixels to lines one to one for ordinary logs', () => {
    const geometry = scrollGeometry(1000, 400, 100 * lineHeight, lineHeight);
    expect(geometry).toMatchObject({ scrollHeight: 1000 * lineHeight, ratio: 1 });
    expect(geometry.first).toBeLessThanOrEqual(100);
    expect(geometry.end).toBeGreaterThanOrEqual(100 + 400 / lineHeight);
  });

  it('caps the scroll height for huge logs and still reaches the last line', () => {
    const total = 5_000_000;
    const viewport = 600;
    const bottom = scrollGeometry(total, viewport, 0, lineHeight).scrollHeight - viewport;
    const geometry = scrollGeometry(total, viewport, bottom, lineHeight);
    expect(geometry.scrollHeight).toBeLessThan(total * lineHeight);
    expect(geometry.end).toBe(total);
    expect(geometry.virtualTop + viewport).toBeCloseTo(total * lineHeight, 3);
  });
});
