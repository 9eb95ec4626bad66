import { describe, expect, it } from 'vitest';
import { LineDiscipline } from './line-discipline';

describe('LineDiscipline', () => {
  it('echoes as you type and sends the line with a newline on Enter', () => {
    const lines = new LineDiscipline();
    expect(lines.input('h')).toEqual({ echo: 'h', send: '' });
    expect(lines.input('i')).toEqual({ echo: 'i', send: '' });
    expect(lines.input('\r')).toEqual({ echo: '\r\n', send: 'hi\n' });
  });

  it('edits with Backspace and Ctrl-U, and drops the line on Ctrl-C', () => {
    const lines = new LineDiscipline();
    lines.input('abc');
    expect(lines.input('\x7f')).toEqual({ echo: '\b \b', send: '' });
    expect(lines.input('\r')).toEqual({ echo: '\r\n', send: 'ab\n' });
    lines.input('xyz');
    expect(lines.input('\x15').echo).toBe('\b \b'.repeat(3));
    expect(lines.input('\x7f')).toEqual({ echo: '', send: '' });
    lines.input('gone');
    expect(lines.input('\x03')).toEqual({ echo: '^C\r\n', send: '' });
    expect(lines.input('\r').send).toBe('\n');
  });

  it('sends pasted lines one by one, drops escape sequences, keeps characters whole', () => {
    const lines = new LineDiscipline();
    expect(lines.input('one\ntwo\r\x1b[Athree')).toEqual({
      echo: 'one\r\ntwo\r\nthree',
      send: 'one\ntwo\n',
    });
    lines.input('\x15');
    lines.input('😀é');
    expect(lines.input('\x7f').echo).toBe('\b \b');
    expect(lines.input('\x04')).toEqual({ echo: '', send: '😀' });
    expect(lines.input('a\r\nb\r\n').send).toBe('a\nb\n');
  });
});
