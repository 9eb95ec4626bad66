import { describe, expect, it } from 'vitest';
import { fuzzyFilter, fuzzyMatch } from './fuzzy';

describe('fuzzyMatch', () => {
  it('matches characters in order, and not out of order', () => {
    expect(fuzzyMatch('stc', 'Stop container web')).toBeDefined();
    expect(fuzzyMatch('cts', 'Stop container web')).toBeUndefined();
  });

  it('returns the matched positions for highlighting', () => {
    expect(fuzzyMatch('pod', 'Go to Pods')?.positions).toEqual([6, 7, 8]);
  });

  it('matches everything with an empty query', () => {
    expect(fuzzyMatch('  ', 'anything')).toEqual({ score: 0, positions: [] });
  });
});

describe('fuzzyFilter', () => {
  const commands = [
    'Show the catalog',
    'Stop container web',
    'Go to Containers',
    'Remove container web',
  ];

  it('prefers matches at word starts', () => {
    expect(fuzzyFilter(commands, 'gtc', (c) => c)[0]?.item).toBe('Go to Containers');
    expect(fuzzyFilter(commands, 'rmc', (c) => c).map((m) => m.item)).toEqual([
      'Remove container web',
    ]);
  });

  it('puts substrings first, earliest first', () => {
    expect(fuzzyFilter(commands, 'container', (c) => c).map((m) => m.item)).toEqual([
      'Stop container web',
      'Go to Containers',
      'Remove container web',
    ]);
  });

  it('keeps the original order for ties', () => {
    expect(fuzzyFilter(['b', 'a'], '', (c) => c).map((m) => m.item)).toEqual(['b', 'a']);
  });
});
