import { describe, expect, it } from 'vitest';
import type { ReadableFile } from '../../base/files/files';
import { tailStart } from './tail';

function fileOf(content: Buffer): ReadableFile {
  return {
    size: () => Promise.resolve(content.length),
    read: (offset, length) => Promise.resolve(content.subarray(offset, offset + length)),
    dispose: () => undefined,
  };
}

async function tail(text: string, lines: number): Promise<string> {
  const content = Buffer.from(text);
  return content.subarray(await tailStart(fileOf(content), content.length, lines)).toString();
}

describe('tailStart', () => {
  it('finds the start of the last N lines', async () => {
    expect(await tail('a\nb\nc\n', 2)).toBe('b\nc\n');
    expect(await tail('a\nb\nc\n', 3)).toBe('a\nb\nc\n');
    expect(await tail('a\nb\nc\n', 10)).toBe('a\nb\nc\n');
    expect(await tail('a\nb\nc\n', 0)).toBe('');
  });

  it('counts a last line still being written', async () => {
    expect(await tail('a\nb\nhalf', 1)).toBe('half');
    expect(await tail('a\nb\nhalf', 2)).toBe('b\nhalf');
  });

  it('reads backwards across blocks', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const text = `${lines.join('\n')}\n`;
    expect(await tail(text, 15_000)).toBe(`${lines.slice(5000).join('\n')}\n`);
  });
});
