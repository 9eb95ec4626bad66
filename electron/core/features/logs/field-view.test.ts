import { describe, expect, it } from 'vitest';
import { FieldView, type BaseView } from './field-view';
import { LogSearcher } from './search';
import { LogStore } from './store';

const t0 = Date.UTC(2024, 4, 1, 12, 0, 0);
function record(ms: number, text: string): string {
  return `${new Date(t0 + ms).toISOString().replace('Z', '000000Z')} stdout F ${text}\n`;
}

/** The whole log as the base view (what the service builds for a log's "all" view). */
function baseOf(store: LogStore): BaseView {
  const searcher = new LogSearcher(store);
  return {
    total: () => store.total('all'),
    text: (index) => store.decode(store.lineAt('all', index), index).text,
    window: (from, count) => store.window('all', from, count),
    search: (query, limit) => searcher.search('all', query, limit),
    epoch: () => store.dropped,
  };
}

describe('FieldView', () => {
  it('keeps the JSON and logfmt lines with the value, and grows with the log', () => {
    const store = new LogStore();
    store.append(
      Buffer.from(
        record(0, '{"level":"info","msg":"start"}') +
          record(1, 'level=error msg="disk full" dev=sda') +
          record(2, 'plain error text') +
          record(3, '{"level":"ERROR","msg":"boom"}'),
      ),
    );
    const base = baseOf(store);
    const errors = new FieldView({ key: 'level', value: 'error' });
    errors.sync(base);
    expect(errors.total).toBe(2);
    expect(errors.window(base, 0, 10).map((line) => [line.index, line.text])).toEqual([
      [0, 'level=error msg="disk full" dev=sda'],
      [1, '{"level":"ERROR","msg":"boom"}'],
    ]);
    store.append(Buffer.from(record(4, 'lvl=error msg=again')));
    errors.sync(base);
    expect(errors.total).toBe(3);
    // A search within the filtered view: positions in it, not in the log.
    expect(errors.search(base, { text: 'boom' }, 10, 1000)).toEqual({
      lines: [1],
      total: 1,
      truncated: false,
    });
    expect(errors.search(base, { text: 'start' }, 10, 1000).total).toBe(0);
  });

  it('finds the same lines in a large log through a search for the value first', () => {
    const store = new LogStore();
    const lines: string[] = [];
    for (let i = 0; i < 30_000; i += 1) {
      const level = i % 1000 === 0 ? 'ERROR' : 'info';
      // "error" in a message that is not the level: found by the search, refused by the read.
      lines.push(record(i, `level=${level} msg="no error here ${i}" n=${i}`));
    }
    store.append(Buffer.from(lines.join('')));
    const base = baseOf(store);
    const errors = new FieldView({ key: 'level', value: 'error' });
    errors.sync(base);
    expect(errors.total).toBe(30);
    expect(errors.window(base, 0, 3).map((line) => line.text)).toEqual([
      'level=ERROR msg="no error here 0" n=0',
      'level=ERROR msg="no error here 1000" n=1000',
      'level=ERROR msg="no error here 2000" n=2000',
    ]);
  });
});
