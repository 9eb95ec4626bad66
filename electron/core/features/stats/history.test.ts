import { describe, expect, it } from 'vitest';
import type { StatsSample } from '../../../../shared/model';
import { SampleHistory } from './history';

const sample = (at: number): StatsSample => ({
  at,
  containers: [],
  pods: [],
  podStatsSupported: true,
  containerStatsSupported: true,
});

describe('SampleHistory', () => {
  it('keeps the samples of the last maxAgeMs, oldest first', () => {
    const history = new SampleHistory(10_000, 100);
    for (let at = 0; at <= 30_000; at += 2000) history.add(sample(at));
    expect(history.list().map((s) => s.at)).toEqual([
      20_000, 22_000, 24_000, 26_000, 28_000, 30_000,
    ]);
  });

  it('never holds more than maxCount samples, however often they come', () => {
    const history = new SampleHistory(60_000, 5);
    for (let at = 0; at < 1000; at += 1) history.add(sample(at));
    expect(history.length).toBe(5);
    expect(history.list().map((s) => s.at)).toEqual([995, 996, 997, 998, 999]);
  });

  it('starts again when the clock goes back, rather than keeping samples from the future', () => {
    const history = new SampleHistory(60_000, 100);
    history.add(sample(100_000));
    history.add(sample(102_000));
    history.add(sample(50_000));
    expect(history.list().map((s) => s.at)).toEqual([50_000]);
  });

  it('hands out copies', () => {
    const history = new SampleHistory(60_000, 100);
    history.add(sample(1));
    const listed = history.list();
    history.add(sample(2));
    expect(listed).toHaveLength(1);
  });
});
