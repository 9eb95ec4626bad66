import { describe, expect, it } from 'vitest';
import { CappedOutput, rowDigest } from './output';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('CappedOutput', () => {
  it('keeps up to the cap and counts every byte', () => {
    const output = new CappedOutput(5);
    output.push(bytes('abc'));
    output.push(bytes('defgh'));
    expect(output.snapshot()).toEqual({ text: 'abcde', bytes: 8, truncated: true });
  });

  it('hashes the whole output, so two outputs that differ past the cap differ', () => {
    const a = new CappedOutput(2);
    const b = new CappedOutput(2);
    a.push(bytes('same-1'));
    b.push(bytes('same-2'));
    expect(a.snapshot().text).toBe(b.snapshot().text);
    expect(a.digest()).not.toBe(b.digest());
  });

  it('copies what it keeps (a pooled buffer may be reused)', () => {
    const output = new CappedOutput(10);
    const chunk = bytes('xyz');
    output.push(chunk);
    chunk.fill(0);
    expect(output.snapshot().text).toBe('xyz');
  });
});

describe('rowDigest', () => {
  it('tells exit codes apart', () => {
    expect(rowDigest(0, 'a', 'b')).not.toBe(rowDigest(1, 'a', 'b'));
    expect(rowDigest(0, 'a', 'b')).toBe(rowDigest(0, 'a', 'b'));
  });
});
