import { describe, expect, it } from 'vitest';
import { FrameBoundaries } from './frame-guard';

/** An unmasked binary frame with `length` payload bytes, as a server sends it. */
function frame(length: number): Buffer {
  const header =
    length < 126
      ? Buffer.from([0x82, length])
      : length < 65536
        ? Buffer.from([0x82, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x82, 127]), Buffer.from(bigEndian64(length))]);
  return Buffer.concat([header, Buffer.alloc(length, 7)]);
}

function bigEndian64(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  for (let i = 0; i < 8; i++) {
    bytes.unshift(rest % 256);
    rest = Math.floor(rest / 256);
  }
  return bytes;
}

describe('FrameBoundaries', () => {
  it('is at a boundary after whole frames of every length encoding, however split', () => {
    const stream = Buffer.concat([frame(0), frame(1), frame(125), frame(126), frame(70_000)]);
    for (const size of [1, 2, 3, 7, 1000, stream.length]) {
      const boundaries = new FrameBoundaries();
      for (let offset = 0; offset < stream.length; offset += size) {
        boundaries.push(stream.subarray(offset, offset + size));
      }
      expect(boundaries.atBoundary).toBe(true);
    }
  });

  it('knows a frame is incomplete, in its header or its payload, and how far it got', () => {
    const boundaries = new FrameBoundaries();
    boundaries.push(Buffer.from([0x82]));
    expect(boundaries.atBoundary).toBe(false);
    boundaries.push(Buffer.from([126, 0xff]));
    expect(boundaries.atBoundary).toBe(false);
    boundaries.push(Buffer.from([0xff, 1, 2, 3]));
    expect(boundaries.atBoundary).toBe(false);
    expect(boundaries.progress).toEqual({ received: 3, expected: 65_535 });
  });

  it('skips a mask key (a client frame, or a confused server)', () => {
    const boundaries = new FrameBoundaries();
    boundaries.push(Buffer.from([0x81, 0x80 | 2, 1, 2, 3, 4, 9, 9]));
    expect(boundaries.atBoundary).toBe(true);
  });
});
