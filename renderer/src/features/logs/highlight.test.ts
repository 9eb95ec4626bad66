import { describe, expect, it } from 'vitest';
import { highlightPattern, segments } from './highlight';

const marked = (text: string, query: Parameters<typeof highlightPattern>[0]): string =>
  segments(text, highlightPattern(query))
    .map((part) => (part.match ? `[${part.text}]` : part.text))
    .join('');

describe('segments', () => {
  it('marks every occurrence, ignoring case unless asked', () => {
    expect(marked('Error: error ERROR', { text: 'error' })).toBe('[Error]: [error] [ERROR]');
    expect(marked('Error: error', { text: 'error', caseSensitive: true })).toBe('Error: [error]');
  });

  it('takes the text literally unless it is a regex', () => {
    expect(marked('a.b axb', { text: 'a.b' })).toBe('[a.b] axb');
    expect(marked('a.b axb', { text: 'a.b', regex: true })).toBe('[a.b] [axb]');
  });

  it('survives empty matches and broken patterns', () => {
    expect(marked('aaa', { text: 'x*', regex: true })).toBe('aaa');
    expect(marked('aaa', { text: '(', regex: true })).toBe('aaa');
    expect(marked('', { text: 'a' })).toBe('');
  });
});
