import { describe, expect, it } from 'vitest';
import type { CpuUsage } from '../../../../shared/model';
import { CpuTracker, cpuRate, minRateIntervalMs } from './cpu';

const reading = (
  timestamp: number,
  usageCoreNanoSeconds?: number,
  usageNanoCores?: number,
): CpuUsage => ({
  timestamp,
  ...(usageCoreNanoSeconds !== undefined && { usageCoreNanoSeconds }),
  ...(usageNanoCores !== undefined && { usageNanoCores }),
});

describe('cpuRate', () => {
  it('is the counter delta over the readings’ own timestamps, in percent of one core', () => {
    // Half a core for 2 s: 1e9 ns of CPU time in 2000 ms.
    expect(cpuRate(reading(10_000, 5e9), reading(12_000, 6e9))).toEqual({
      kind: 'rate',
      percent: 50,
    });
    // Two cores busy: 200 %.
    expect(cpuRate(reading(0, 0), reading(1000, 2e9))).toEqual({ kind: 'rate', percent: 200 });
    // Idle: nothing used.
    expect(cpuRate(reading(0, 7e9), reading(2000, 7e9))).toEqual({ kind: 'rate', percent: 0 });
  });

  it('gives no rate on the first reading, even when the runtime reports an average', () => {
    // containerd says 0 nano-cores until it has its own window: that would show busy as idle.
    expect(cpuRate(undefined, reading(1000, 5e9, 0))).toEqual({ kind: 'baseline' });
  });

  it('makes a counter that went backwards (a restart) a new baseline, not a negative spike', () => {
    expect(cpuRate(reading(0, 9e9), reading(2000, 1e8))).toEqual({ kind: 'baseline' });
  });

  it('refuses readings too close together instead of dividing by almost nothing', () => {
    expect(cpuRate(reading(1000, 5e9), reading(1000, 5e9))).toEqual({ kind: 'too-soon' });
    expect(cpuRate(reading(1000, 5e9), reading(1000 + minRateIntervalMs - 1, 5.1e9))).toEqual({
      kind: 'too-soon',
    });
    // A clock that went back is a new start, not a negative interval.
    expect(cpuRate(reading(5000, 5e9), reading(1000, 6e9))).toEqual({ kind: 'baseline' });
  });

  it('falls back to the runtime’s average when only that is given', () => {
    expect(cpuRate(undefined, reading(1000, undefined, 250_000_000))).toEqual({
      kind: 'rate',
      percent: 25,
    });
    expect(cpuRate(reading(0, 1e9), reading(2000, undefined, 1e9))).toEqual({
      kind: 'rate',
      percent: 100,
    });
  });

  it('gives nothing when the reading has no counter at all', () => {
    expect(cpuRate(reading(0, 1e9), reading(2000))).toEqual({ kind: 'baseline' });
  });
});

describe('CpuTracker', () => {
  it('turns a series of readings into rates, per key', () => {
    const tracker = new CpuTracker();
    expect(tracker.percent('a', reading(0, 0))).toBeUndefined();
    expect(tracker.percent('b', reading(0, 0))).toBeUndefined();
    expect(tracker.percent('a', reading(2000, 2e9))).toBe(100);
    expect(tracker.percent('b', reading(2000, 2e8))).toBe(10);
    expect(tracker.percent('a', reading(4000, 3e9))).toBe(50);
  });

  it('keeps the old baseline across a reading that came too soon', () => {
    const tracker = new CpuTracker();
    tracker.percent('a', reading(0, 0));
    expect(tracker.percent('a', reading(50, 1e7))).toBeUndefined();
    // Measured from 0, not from the too-close reading at 50 ms.
    expect(tracker.percent('a', reading(1000, 1e9))).toBe(100);
  });

  it('restarts after a counter reset without a spike', () => {
    const tracker = new CpuTracker();
    tracker.percent('a', reading(0, 50e9));
    expect(tracker.percent('a', reading(2000, 52e9))).toBe(100);
    expect(tracker.percent('a', reading(4000, 1e8))).toBeUndefined();
    expect(tracker.percent('a', reading(6000, 1.1e9))).toBe(50);
  });

  it('forgets a key whose reading is missing, and keys no longer retained', () => {
    const tracker = new CpuTracker();
    tracker.percent('a', reading(0, 0));
    tracker.percent('b', reading(0, 0));
    expect(tracker.percent('a', undefined)).toBeUndefined();
    expect(tracker.percent('a', reading(2000, 2e9))).toBeUndefined();
    tracker.retain(new Set(['a']));
    expect(tracker.size).toBe(1);
    expect(tracker.percent('b', reading(2000, 2e9))).toBeUndefined();
  });
});
