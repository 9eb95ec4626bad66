import { describe, expect, it } from 'vitest';
import { MergeIndex } from './merge';
import { LogStore } from './store';

const t0 = Date.UTC(2024, 4, 1, 12, 0, 0);
function record(ms: number, text: string, stream: 'stdout' | 'stderr' = 'stdout'): string {
  return `${new Date(t0 + ms).toISOString().replace('Z', '000000Z')} ${stream} F ${text}\n`;
}
function storeOf(...records: [ms: number, text: string][]): LogStore {
  const store = new LogStore();
  store.append(Buffer.from(records.map(([ms, text]) => record(ms, text)).join('')));
  return store;
}
function merged(index: MergeIndex, stores: readonly LogStore[]): string[] {
  return Array.from({ length: index.count }, (_, position) => {
    const { source, line } = index.at(position);
    return stores[source]?.decode(line, position).text ?? '?';
  });
}

describe('MergeIndex', () => {
  it('orders lines of several logs by time, ties by source order', () => {
    const stores = [
      storeOf([0, 'a0'], [30, 'a30'], [60, 'a60']),
      storeOf([10, 'b10'], [30, 'b30'], [70, 'b70']),
      storeOf([20, 'c20'], [25, 'c25']),
    ];
    const index = new MergeIndex(stores);
    expect(index.advance()).toBe(8);
    expect(merged(index, stores)).toEqual(['a0', 'b10', 'c20', 'c25', 'a30', 'b30', 'a60', 'b70']);
  });

  it('maps a source line to its merged position and back', () => {
    const stores = [storeOf([0, 'a0'], [20, 'a20']), storeOf([10, 'b10'])];
    const index = new MergeIndex(stores);
    index.advance();
    expect(index.positionOf(0, 1)).toBe(2);
    expect(index.positionOf(1, 0)).toBe(1);
    expect(index.positionOf(1, 1)).toBeUndefined();
    expect(index.at(1)).toEqual({ source: 1, line: 0 });
  });

  it('merges only up to a watermark, and appends what comes later at the end', () => {
    const a = storeOf([0, 'a0'], [100, 'a100']);
    const b = storeOf([50, 'b50']);
    const index = new MergeIndex([a, b]);
    expect(index.advance(t0 + 60)).toBe(2);
    expect(index.pending).toBe(true);
    // b writes a line older than a100, which is still held back: it goes before it.
    b.append(Buffer.from(record(80, 'b80')));
    index.advance();
    expect(merged(index, [a, b])).toEqual(['a0', 'b50', 'b80', 'a100']);
    // A line older than everything merged already joins at the end, not lost.
    a.append(Buffer.from(record(10, 'a-late')));
    index.advance();
    expect(merged(index, [a, b]).at(-1)).toBe('a-late');
    expect(index.pending).toBe(false);
  });

  it('tells stderr lines apart, and its newest time', () => {
    const store = new LogStore();
    store.append(Buffer.from(record(0, 'out') + record(5, 'err', 'stderr')));
    const index = new MergeIndex([store]);
    index.advance();
    expect([index.isStderr(0), index.isStderr(1)]).toEqual([false, true]);
    expect(index.latestTime()).toBe(t0 + 5);
  });

  it('forgets lines their stores dropped, and keeps the rest in order', () => {
    // A busy log with a tiny memory bound and a quiet one: the busy one drops its oldest.
    const busy = new LogStore({ maxBytes: 64 * 1024, chunkSize: 8 * 1024 });
    const quiet = storeOf([0, 'q0'], [1_000_000, 'q-late']);
    const index = new MergeIndex([busy, quiet]);
    index.advance(t0);
    for (let i = 0; i < 4000; i += 1) {
      busy.append(Buffer.from(record(i + 1, `busy ${i}`)));
      // Merged as it comes (the follow's way), so what is dropped later was merged.
      if (i % 100 === 0) index.advance(t0 + i);
    }
    index.advance();
    expect(busy.dropped).toBeGreaterThan(0);
    const before = index.count;
    const removed = index.compact();
    expect(removed).toBe(busy.dropped);
    expect(index.count).toBe(before - removed);
    expect(index.dropped).toBe(removed);
    const texts = merged(index, [busy, quiet]);
    expect(texts[0]).toBe('q0');
    expect(texts[1]).toBe(`busy ${busy.dropped}`);
    expect(texts.at(-1)).toBe('q-late');
    expect(index.positionOf(1, 1)).toBe(index.count - 1);
    expect(index.positionOf(0, busy.dropped)).toBe(1);
  });

  it('matches a sort by (time, source, line) on random logs, merged in steps or at once', () => {
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let round = 0; round < 20; round += 1) {
      const records = [0, 1, 2, 3, 4].map((source) => {
        let time = 0;
        // Runs of lines, gaps and equal times: what a pod's containers write.
        return Array.from({ length: Math.floor(next() * 60) }, (_, line): [number, string] => {
          time += next() < 0.3 ? 0 : Math.floor(next() * 20);
          return [time, `${source}:${line}`];
        });
      });
      const expected = records
        .flatMap((lines, source) =>
          lines.map(([time, text], line) => ({ time, source, line, text })),
        )
        .sort((a, b) => a.time - b.time || a.source - b.source || a.line - b.line)
        .map((entry) => entry.text);
      const stores = records.map((lines) => storeOf(...lines));
      const atOnce = new MergeIndex(stores);
      atOnce.advance();
      expect(merged(atOnce, stores)).toEqual(expected);
      const inSteps = new MergeIndex(stores);
      for (let upTo = t0; inSteps.pending; upTo += Math.floor(next() * 50)) inSteps.advance(upTo);
      expect(merged(inSteps, stores)).toEqual(expected);
    }
  });
});
