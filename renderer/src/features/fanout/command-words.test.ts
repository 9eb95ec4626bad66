import { describe, expect, it } from 'vitest';
import { commandWords, splitWords } from './command-words';

describe('commandWords', () => {
  it('runs the text through sh -c by default', () => {
    expect(commandWords('hostname; cat /etc/hostname', true)).toEqual([
      'sh',
      '-c',
      'hostname; cat /etc/hostname',
    ]);
    expect(commandWords('   ', true)).toEqual([]);
  });

  it('splits a plain command as a shell would, quotes and escapes included', () => {
    expect(splitWords(`cat '/etc/my file' "a \\"b\\"" c\\ d ''`)).toEqual([
      'cat',
      '/etc/my file',
      'a "b"',
      'c d',
      '',
    ]);
    expect(commandWords('ls  -l', false)).toEqual(['ls', '-l']);
  });
});
