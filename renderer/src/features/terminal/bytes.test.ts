import { describe, expect, it } from 'vitest';
import { incompleteUtf8Tail, StreamShaper, stderrEnd, stderrStart } from './bytes';

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const utf8 = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('incompleteUtf8Tail', () => {
  it('is 0 at a character boundary', () => {
    expect(incompleteUtf8Tail(utf8('abc'))).toBe(0);
    expect(incompleteUtf8Tail(utf8('a€'))).toBe(0);
    expect(incompleteUtf8Tail(utf8('😀'))).toBe(0);
    expect(incompleteUtf8Tail(new Uint8Array(0))).toBe(0);
  });

  it('counts the bytes of an unfinished character', () => {
    const euro = utf8('€');
    expect(incompleteUtf8Tail(euro.subarray(0, 1))).toBe(1);
    expect(incompleteUtf8Tail(euro.subarray(0, 2))).toBe(2);
    const emoji = utf8('x😀');
    expect(incompleteUtf8Tail(emoji.subarray(0, 4))).toBe(3);
  });

  it('treats invalid bytes as complete (xterm shows them, nothing is held forever)', () => {
    expect(incompleteUtf8Tail(Uint8Array.from([0x61, 0xff]))).toBe(0);
    expect(incompleteUtf8Tail(Uint8Array.from([0x80, 0x80, 0x80, 0x80]))).toBe(0);
  });
});

describe('StreamShaper', () => {
  it('wraps stderr in red and leaves stdout alone, adding nothing else', () => {
    const shaper = new StreamShaper();
    expect(text(shaper.shape('stdout', utf8('out\n')))).toBe('out\n');
    expect(text(shaper.shape('stderr', utf8('err\n')))).toBe('\x1b[31merr\n\x1b[39m');
    expect([...stderrStart]).toEqual([...utf8('\x1b[31m')]);
    expect([...stderrEnd]).toEqual([...utf8('\x1b[39m')]);
  });

  it('keeps a character split across chunks whole, even when the other stream interleaves', () => {
    const shaper = new StreamShaper();
    const euro = utf8('€');
    const parts = [
      shaper.shape('stderr', Uint8Array.from([...utf8('a'), ...euro.subarray(0, 1)])),
      shaper.shape('stdout', utf8('o')),
      shaper.shape('stderr', Uint8Array.from([...euro.subarray(1), ...utf8('b')])),
    ];
    expect(parts.map(text)).toEqual(['\x1b[31ma\x1b[39m', 'o', '\x1b[31m€b\x1b[39m']);
  });

  it('shows what is left when the process ends mid-character', () => {
    const shaper = new StreamShaper();
    expect(shaper.shape('stdout', utf8('€').subarray(0, 2)).length).toBe(0);
    expect([...shaper.flush()]).toEqual([0xe2, 0x82]);
    expect(shaper.flush().length).toBe(0);
  });
});
