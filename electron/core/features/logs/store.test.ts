import { describe, expect, it } from 'vitest';
import { LogStore } from './store';

const t0 = Date.UTC(2024, 4, 1, 12, 0, 0);
function stamp(ms: number): string {
  return new Date(t0 + ms).toISOString().replace('Z', '000000Z');
}
function record(ms: number, stream: 'stdout' | 'stderr', tag: 'P' | 'F', text: string): string {
  return `${stamp(ms)} ${stream} ${tag} ${text}\n`;
}

function texts(store: LogStore, selection: 'all' | 'stdout' | 'stderr' = 'all'): string[] {
  return store.window(selection, 0, store.total(selection)).map((line) => line.text);
}

describe('LogStore', () => {
  it('indexes records and decodes a window with the original timestamp text', () => {
    const store = new LogStore();
    store.append(Buffer.from(record(0, 'stdout', 'F', 'one') + record(5, 'stderr', 'F', 'two')));
    expect(store.lineCount).toBe(2);
    expect(store.window('all', 1, 10)).toEqual([
      { index: 1, time: t0 + 5, timeText: stamp(5), stream: 'stderr', text: 'two' },
    ]);
  });

  it('merges partial records into the full one that ends them, per stream', () => {
    const store = new LogStore();
    store.append(
      Buffer.from(
        record(0, 'stdout', 'P', 'hel') +
          record(1, 'stderr', 'F', 'between') +
          record(2, 'stdout', 'P', 'lo ') +
          record(3, 'stdout', 'F', 'world'),
      ),
    );
    const lines = store.window('all', 0, 10);
    expect(lines.map((line) => [line.stream, line.text])).toEqual([
      ['stderr', 'between'],
      ['stdout', 'hello world'],
    ]);
    // A merged line is as old as its first part.
    expect(lines[1]).toMatchObject({ time: t0, timeText: stamp(0) });
  });

  it('keeps lines that are not records, as stdout text at the time before them', () => {
    const store = new LogStore();
    store.append(Buffer.from(`${record(7, 'stdout', 'F', 'ok')}garbage line\n\n`));
    expect(store.window('all', 0, 10)).toEqual([
      { index: 0, time: t0 + 7, timeText: stamp(7), stream: 'stdout', text: 'ok' },
      { index: 1, time: t0 + 7, timeText: '', stream: 'stdout', text: 'garbage line' },
      { index: 2, time: t0 + 7, timeText: '', stream: 'stdout', text: '' },
    ]);
  });

  it('gives the same lines whatever the reads are cut into', () => {
    let text = '';
    for (let i = 0; i < 200; i += 1) {
      text += record(i, i % 3 === 0 ? 'stderr' : 'stdout', i % 7 === 1 ? 'P' : 'F', `line ${i} ✓`);
    }
    const bytes = Buffer.from(text);
    const whole = new LogStore();
    whole.append(bytes);
    whole.finish();
    const pieces = new LogStore({ chunkSize: 512 });
    for (let at = 0; at < bytes.length; at += 13) pieces.append(bytes.subarray(at, at + 13));
    pieces.finish();
    expect(texts(pieces)).toEqual(texts(whole));
    expect(texts(pieces, 'stderr')).toEqual(texts(whole, 'stderr'));
    expect(texts(whole)).toContain('line 1 ✓line 2 ✓');
  });

  it('holds a last line without a newline until the file ends', () => {
    const store = new LogStore();
    store.append(Buffer.from(record(0, 'stdout', 'F', 'done') + `${stamp(1)} stdout F half`));
    expect(texts(store)).toEqual(['done']);
    store.append(Buffer.from(' more\n'));
    expect(texts(store)).toEqual(['done', 'half more']);
    store.append(Buffer.from(`${stamp(2)} stdout F cut off`));
    store.endOfFile();
    expect(texts(store)).toEqual(['done', 'half more', 'cut off']);
  });

  it('shows a partial line whose end never came once reading is finished', () => {
    const store = new LogStore();
    store.append(Buffer.from(record(0, 'stdout', 'P', 'never ')));
    expect(store.lineCount).toBe(0);
    store.finish();
    expect(texts(store)).toEqual(['never ']);
  });

  it('keeps only lines since a time', () => {
    const store = new LogStore({ since: t0 + 10 });
    for (let i = 0; i < 20; i += 1) store.append(Buffer.from(record(i, 'stdout', 'F', `${i}`)));
    expect(texts(store)).toEqual(['10', '11', '12', '13', '14', '15', '16', '17', '18', '19']);
  });

  it('filters by stream with view indices of its own', () => {
    const store = new LogStore();
    for (let i = 0; i < 10; i += 1) {
      store.append(Buffer.from(record(i, i % 2 === 0 ? 'stdout' : 'stderr', 'F', `${i}`)));
    }
    expect(store.total('stderr')).toBe(5);
    expect(store.window('stderr', 1, 2)).toMatchObject([
      { index: 1, text: '3' },
      { index: 2, text: '5' },
    ]);
    store.append(Buffer.from(record(10, 'stderr', 'F', 'late')));
    expect(store.total('stderr')).toBe(6);
    expect(store.indexOf('stderr', store.lineAt('stderr', 5))).toBe(5);
  });

  it('drops the oldest lines past its memory bound and says how many', () => {
    const store = new LogStore({ maxBytes: 256 * 1024, chunkSize: 32 * 1024 });
    const total = 20_000;
    let batch = '';
    for (let i = 0; i < total; i += 1) {
      batch += record(i, i % 4 === 0 ? 'stderr' : 'stdout', 'F', `message number ${i}`);
      if (i % 500 === 499) {
        store.append(Buffer.from(batch));
        batch = '';
      }
    }
    expect(store.memoryBytes).toBeLessThanOrEqual(256 * 1024);
    expect(store.dropped).toBeGreaterThan(0);
    expect(store.dropped + store.lineCount).toBe(total);
    const all = store.window('all', 0, store.lineCount);
    expect(all[0]?.text).toBe(`message number ${store.dropped}`);
    expect(all.at(-1)?.text).toBe(`message number ${total - 1}`);
    const stderr = store.window('stderr', 0, store.total('stderr'));
    expect(stderr.every((line) => Number(line.text.split(' ').at(-1)) % 4 === 0)).toBe(true);
    expect(Number(stderr[0]?.text.split(' ').at(-1))).toBeGreaterThanOrEqual(store.dropped);
  });

  it('cuts a line without a newline that grows past a megabyte', () => {
    const store = new LogStore();
    const big = Buffer.alloc(1024 * 1024 + 10, 0x61);
    store.append(big);
    expect(store.lineCount).toBe(1);
    expect(store.window('all', 0, 1)[0]?.text.length).toBe(big.length);
  });
});
