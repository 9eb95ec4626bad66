import { describe, expect, it } from 'vitest';
import { compileNamePattern } from './selector';

describe('compileNamePattern', () => {
  it('matches anywhere unless anchored, in RE2 syntax', () => {
    const pattern = compileNamePattern('^web-[0-9]+$');
    expect(pattern.test('web-12')).toBe(true);
    expect(pattern.test('xweb-12')).toBe(false);
    expect(compileNamePattern('eb').test('web')).toBe(true);
  });

  it('refuses what RE2 has not (lookaround) with a hint, and empty patterns', () => {
    expect(() => compileNamePattern('(?=a)')).toThrow(/not a regular expression/);
    expect(() => compileNamePattern('  ')).toThrow(/empty/);
  });
});
