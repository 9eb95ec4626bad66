import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { formatCommandLine, splitCommandLine } from './command-line';

describe('splitCommandLine', () => {
  it.each([
    ['bash', ['bash']],
    ['  ls   -la  / ', ['ls', '-la', '/']],
    [`sh -c 'echo "hi there" | wc -c'`, ['sh', '-c', 'echo "hi there" | wc -c']],
    ['echo "a \\"b\\" \\\\ $HOME"', ['echo', 'a "b" \\ $HOME']],
    ['echo a\\ b', ['echo', 'a b']],
    ["echo ''", ['echo', '']],
    ['echo x""y', ['echo', 'xy']],
    ['', []],
  ])('%j → %j', (text, argv) => {
    expect(splitCommandLine(text)).toEqual(argv);
  });

  it('refuses an unclosed quote with a hint', () => {
    expect(() => splitCommandLine(`echo 'oops`)).toThrow(AppError);
    expect(() => splitCommandLine('echo "oops')).toThrow(/unclosed double quote/);
  });

  it('formats argv back into a line that splits the same way', () => {
    const argv = ['sh', '-c', `echo "it's" $HOME`, ''];
    expect(splitCommandLine(formatCommandLine(argv))).toEqual(argv);
  });
});
