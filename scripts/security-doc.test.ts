/**
 * SECURITY.md names the test behind each promise: every test file it names exists, so the
 * page can't go on citing a test that was renamed or removed. It is linked from the README.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
const root = join(import.meta.dirname, '..');

describe('SECURITY.md', () => {
  const text = readFileSync(join(root, 'SECURITY.md'), 'utf8');
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  }).split('\n');

  it('cites only test files that exist', () => {
    const cited = [...text.matchAll(/`([\w./-]+\.test\.tsx?)`/g)].map((match) => match[1] ?? '');
    expect(cited.length).toBeGreaterThan(20);
    for (const name of new Set(cited)) {
      const found = name.includes('/')
        ? tracked.includes(name)
        : tracked.some((path) => path.endsWith(`/${name}`));
      expect(found, name).toBe(true);
    }
  });

  it('is linked from the README', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('](SECURITY.md)');
  });
});
