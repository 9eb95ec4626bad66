import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../../shared/model';
import { LineCache, pageSize } from './line-cache';

function fakeLog(total: { value: number }) {
  const calls: [number, number][] = [];
  const pending: (() => void)[] = [];
  const fetch = (from: number, count: number) => {
    calls.push([from, count]);
    const lines: LogLine[] = [];
    for (let i = from; i < Math.min(total.value, from + count); i += 1) {
      lines.push({ index: i, time: 0, timeText: '', stream: 'stdout', text: `line ${i}` });
    }
    return new Promise<{ lines: LogLine[]; total: number }>((resolve) =>
      pending.push(() => resolve({ lines, total: total.value })),
    );
  };
  const flush = async (): Promise<void> => {
    for (const resolve of pending.splice(0)) resolve();
    await new Promise((done) => setTimeout(done, 0));
  };
  return { calls, fetch, flush };
}

describe('LineCache', () => {
  it('fetches each missing page once', async () => {
    const log = fakeLog({ value: 1000 });
    const cache = new LineCache(log.fetch);
    cache.ensure(10, 300);
    cache.ensure(20, 290);
    expect(log.calls).toEqual([
      [0, pageSize],
      [pageSize, pageSize],
    ]);
    await log.flush();
    expect(cache.get(299)?.text).toBe('line 299');
    cache.ensure(0, 300);
    expect(log.calls).toHaveLength(2);
  });

  it('fetches the last page again once the log grew', async () => {
    const total = { value: 260 };
    const log = fakeLog(total);
    const cache = new LineCache(log.fetch);
    cache.ensure(200, 260);
    await log.flush();
    expect(cache.get(259)?.text).toBe('line 259');
    total.value = 270;
    cache.invalidateFrom(260);
    // Still shown while it is fetched again: no flicker.
    expect(cache.get(259)?.text).toBe('line 259');
    cache.ensure(200, 270);
    expect(log.calls.at(-1)).toEqual([pageSize, pageSize]);
    await log.flush();
    expect(cache.get(269)?.text).toBe('line 269');
  });

  it('ignores answers to requests made before a reset', async () => {
    const log = fakeLog({ value: 100 });
    const cache = new LineCache(log.fetch);
    cache.ensure(0, 10);
    cache.reset();
    await log.flush();
    expect(cache.get(0)).toBeUndefined();
  });

  it('keeps a bounded number of pages', async () => {
    const log = fakeLog({ value: 1_000_000 });
    const cache = new LineCache(log.fetch);
    for (let page = 0; page < 100; page += 1) {
      cache.ensure(page * pageSize, page * pageSize + 1);
      await log.flush();
    }
    let held = 0;
    for (let page = 0; page < 100; page += 1)
      if (cache.get(page * pageSize) !== undefined) held += 1;
    expect(held).toBe(64);
    expect(cache.get(99 * pageSize)).toBeDefined();
    expect(cache.get(0)).toBeUndefined();
  });
});
