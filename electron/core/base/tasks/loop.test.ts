import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ResponsiveClock } from './loop';

describe('ResponsiveClock', () => {
  let now = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    now = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const clock = (): ResponsiveClock => new ResponsiveClock({ tickMs: 100, now: () => now });

  /** Advances the fake timers and the clock's own time together, tick by tick. */
  async function pass(ms: number): Promise<void> {
    for (let passed = 0; passed < ms; passed += 100) {
      now += 100;
      await vi.advanceTimersByTimeAsync(100);
    }
  }

  it('fires a deadline after that much responsive time', async () => {
    const fired = vi.fn();
    clock().after(1000, fired);
    await pass(900);
    expect(fired).not.toHaveBeenCalled();
    await pass(100);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('does not count a stalled loop: a late tick adds at most a tick and a half', async () => {
    const fired = vi.fn();
    clock().after(1000, fired);
    await pass(300);
    // The loop was stuck for 5 s: the next tick comes that late.
    now += 5000;
    await vi.advanceTimersByTimeAsync(100);
    // 300 + 150 + 500 ms counted: not yet.
    await pass(500);
    expect(fired).not.toHaveBeenCalled();
    await pass(100);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('turns a deadline into deadline-exceeded, and lets an answer in time through', async () => {
    const responsive = clock();
    const late = responsive.within(500, 'It is not answering.', (signal) => {
      return new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      });
    });
    const caught = late.catch((error: unknown) => error);
    await pass(600);
    expect(await caught).toMatchObject({
      code: 'deadline-exceeded',
      message: 'It is not answering.',
    });
    await expect(responsive.within(500, 'x', () => Promise.resolve(7))).resolves.toBe(7);
  });
});
