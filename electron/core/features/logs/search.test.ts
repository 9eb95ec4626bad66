import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { foldAscii, LogSearcher } from './search';
import { LogStore } from './store';

const stamp = '2024-05-01T12:00:00.000000001Z';
const record = (stream: 'stdout' | 'stderr', tag: 'P' | 'F', text: string): string =>
  `${stamp} ${stream} ${tag} ${text}\n`;

function storeOf(text: string, chunkSize?: number): LogStore {
  const store = new LogStore(chunkSize === undefined ? {} : { chunkSize });
  store.append(Buffer.from(text));
  store.finish();
  return store;
}

const searchers: LogSearcher[] = [];
function searcher(store: LogStore): LogSearcher {
  const created = new LogSearcher(store);
  searchers.push(created);
  return created;
}
afterEach(() => {
  for (const created of searchers.splice(0)) created.dispose();
});

describe('LogSearcher', () => {
  const store = storeOf(
    record('stdout', 'F', 'GET /health 200') +
      record('stderr', 'F', 'Error: connection refused') +
      record('stdout', 'F', 'retrying stdout after error') +
      record('stderr', 'F', 'ERROR again') +
      'not a record with error in it\n' +
      record('stdout', 'F', 'Été à Zürich'),
  );

  it('finds plain text case-insensitively by default, in view indices', () => {
    expect(searcher(store).search('all', { text: 'error' }, 100)).toEqual({
      lines: [1, 2, 3, 4],
      total: 4,
      truncated: false,
    });
    expect(searcher(store).search('stderr', { text: 'error' }, 100).lines).toEqual([0, 1]);
    expect(searcher(store).search('stdout', { text: 'error' }, 100).lines).toEqual([1, 2]);
  });

  it('matches case when asked', () => {
    expect(
      searcher(store).search('all', { text: 'ERROR', caseSensitive: true }, 100).lines,
    ).toEqual([3]);
  });

  it('never matches the timestamp or stream of a record', () => {
    expect(searcher(store).search('all', { text: 'stdout' }, 100).lines).toEqual([2]);
    expect(searcher(store).search('all', { text: '12:00' }, 100).lines).toEqual([]);
    expect(searcher(store).search('all', { text: 'Z stderr F' }, 100).lines).toEqual([]);
  });

  it('folds the case of non-ASCII letters too', () => {
    expect(searcher(store).search('all', { text: 'ÉTÉ À zürich' }, 100).lines).toEqual([5]);
  });

  it('takes regular expressions, and says clearly when one is broken', () => {
    expect(
      searcher(store).search('all', { text: '^(get|error)\\b', regex: true }, 100).lines,
    ).toEqual([0, 1, 3]);
    const broken = (() => {
      try {
        searcher(store).search('all', { text: '(unclosed', regex: true }, 100);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(broken).toBeInstanceOf(AppError);
    expect(broken).toMatchObject({ code: 'invalid-argument' });
  });

  it("runs a regular expression in linear time: (a+)+$ over a long line of a's returns at once", () => {
    // V8's backtracking engine needs ~2^n steps for this on n a's; at 50,000 it would not
    // finish in any lifetime, and it would block the thread that serves the UI meanwhile.
    const hostile = storeOf(
      record('stdout', 'F', `${'a'.repeat(50_000)}!`) + record('stdout', 'F', 'aaa'),
    );
    const found = searcher(hostile).search('all', { text: '(a+)+$', regex: true }, 100);
    expect(found).toEqual({ lines: [1], total: 1, truncated: false });
    expect(searcher(hostile).search('all', { text: '(x+x+)+y', regex: true }, 100)).toMatchObject({
      total: 0,
      truncated: false,
    });
  });

  it('refuses what only a backtracking engine can do, saying why', () => {
    for (const text of ['(?=a)b', '(?<!a)b', '(a)\\1', 'a{1001}']) {
      expect(() => searcher(store).search('all', { text, regex: true }, 100), text).toThrow(
        expect.objectContaining({
          code: 'invalid-argument',
          message: 'That is not a regular expression Porthole can search with.',
          hint: expect.stringMatching(/RE2 syntax.*linear time/) as string,
        }),
      );
    }
    // Linear, but a huge program costs seconds per line: refused, with its size.
    expect(() =>
      searcher(store).search('all', { text: '[^\\x00]{1000}'.repeat(3), regex: true }, 100),
    ).toThrow(/too complex to search with \(3002 steps; at most 2000\)/);
    // Case-insensitive by default, as plain text is.
    expect(
      searcher(store).search('all', { text: 'error:? (c|a)', regex: true }, 100).lines,
    ).toEqual([1, 3]);
  });

  it('stops at the limit but counts every match', () => {
    expect(searcher(store).search('all', { text: 'r' }, 2)).toEqual({
      lines: [1, 2],
      total: 5,
      truncated: true,
    });
  });

  it('finds text across the partial records of a merged line', () => {
    const merged = storeOf(
      record('stdout', 'F', 'first') +
        record('stdout', 'P', 'a very long li') +
        record('stdout', 'F', 'ne that was split') +
        record('stdout', 'F', 'last line'),
    );
    expect(searcher(merged).search('all', { text: 'LONG LINE' }, 10).lines).toEqual([1]);
    expect(searcher(merged).search('all', { text: 'line' }, 10).lines).toEqual([1, 2]);
  });

  it('agrees with a line-by-line search over many chunks', () => {
    const words = ['alpha', 'Beta', 'GAMMA', 'delta', 'ÄrGer', 'x'];
    let text = '';
    let seed = 7;
    for (let i = 0; i < 3000; i += 1) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const message = Array.from(
        { length: 4 },
        (_, k) => words[(seed >> (k * 3)) % words.length],
      ).join(' ');
      text += record(seed % 5 === 0 ? 'stderr' : 'stdout', seed % 11 === 0 ? 'P' : 'F', message);
    }
    const big = storeOf(text, 4096);
    const everything = big.window('all', 0, big.lineCount);
    for (const query of ['beta gamma', 'ALPHA', 'a', 'x x', 'ärger']) {
      const expected = everything
        .filter((line) => line.text.toLowerCase().includes(query.toLowerCase()))
        .map((line) => line.index);
      expect(searcher(big).search('all', { text: query }, 100_000).lines, query).toEqual(expected);
    }
  });
});

describe('foldAscii', () => {
  it('lowers A–Z and leaves every other byte alone, at any alignment', () => {
    const bytes = Buffer.alloc(1031);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 37) % 256;
    for (const offset of [0, 1, 2, 3]) {
      const slice = bytes.subarray(offset);
      const expected = Buffer.from(
        slice.map((byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte)),
      );
      expect(foldAscii(slice).equals(expected)).toBe(true);
    }
  });
});
