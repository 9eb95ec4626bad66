import { constants, deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  HeaderCompressor,
  HeaderDecompressor,
  MAX_HEADER_BLOCK_LENGTH,
  decodeHeaderBlock,
  encodeHeaderBlock,
} from './compression';
import { SPDY3_DICTIONARY } from './dictionary';
import { FrameError } from './frames';

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

describe('SPDY/3 dictionary', () => {
  it('is the 1423 bytes of the spec (Adler-32 0xe3c6a7c2, as zlib streams announce it)', () => {
    expect(SPDY3_DICTIONARY.length).toBe(1423);
    expect(adler32(SPDY3_DICTIONARY).toString(16)).toBe('e3c6a7c2');
    expect(SPDY3_DICTIONARY.subarray(0, 11).toString('latin1')).toBe('\0\0\0\x07options');
    expect(SPDY3_DICTIONARY.subarray(-7).toString('latin1')).toBe(',enq=0.');
  });

  it('inflates header blocks compressed by another SPDY/3 stack', async () => {
    // The header blocks of spdy-transport's parser test vectors.
    const decompressor = new HeaderDecompressor();
    await expect(
      decompressor.decompress(
        Buffer.from('78f9e3c6a7c202e50e507ab442a45a77d7105006b32a4804974d8cfa00000000ffff', 'hex'),
      ),
    ).resolves.toEqual({ ':method': 'GET', ':path': '/' });
    decompressor.dispose();
    const reply = new HeaderDecompressor();
    await expect(
      reply.decompress(Buffer.from('78f9e3c6a7c202a6230600000000ffff', 'hex')),
    ).resolves.toEqual({});
    reply.dispose();
  });
});

describe('header blocks', () => {
  it('encode and decode', () => {
    const headers = { streamtype: 'stdin', port: '8080', requestid: '0', empty: '', utf8: 'é→' };
    const block = encodeHeaderBlock(headers);
    expect(block.readUInt32BE(0)).toBe(5);
    expect(block.subarray(4, 22).toString('hex')).toBe(
      '0000000a' + Buffer.from('streamtype').toString('hex') + '00000005',
    );
    expect(decodeHeaderBlock(block)).toEqual(headers);
    expect(encodeHeaderBlock({})).toEqual(Buffer.alloc(4));
  });

  it('reject malformed blocks', () => {
    const pair = (name: string, value: string): Buffer => {
      const n = Buffer.from(name);
      const v = Buffer.from(value);
      const out = Buffer.alloc(8 + n.length + v.length);
      out.writeUInt32BE(n.length, 0);
      n.copy(out, 4);
      out.writeUInt32BE(v.length, 4 + n.length);
      v.copy(out, 8 + n.length);
      return out;
    };
    const count = (n: number): Buffer => {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(n, 0);
      return out;
    };
    const cases: [Buffer, RegExp][] = [
      [Buffer.alloc(2), /shorter than its count/],
      [count(0x7fffffff), /do not fit/],
      [Buffer.concat([count(1), pair('a', 'bcdefgh').subarray(0, 12)]), /truncated string/],
      [Buffer.concat([count(2), pair('a', 'b'), pair('a', 'c')]), /duplicate header "a"/],
      [Buffer.concat([count(1), pair('Upper', 'b')]), /not lowercase/],
      [Buffer.concat([count(1), pair('', 'b')]), /empty header name/],
      [Buffer.concat([count(1), pair('a', 'b'), Buffer.from([0])]), /1 bytes after/],
    ];
    for (const [block, message] of cases) {
      expect(() => decodeHeaderBlock(block)).toThrow(FrameError);
      expect(() => decodeHeaderBlock(block)).toThrow(message);
    }
  });
});

describe('header compression', () => {
  it('shares one context per direction across frames, in order', async () => {
    const compressor = new HeaderCompressor();
    const decompressor = new HeaderDecompressor();
    const blocks = [
      { streamtype: 'error' },
      { streamtype: 'stdin' },
      { streamtype: 'stdout' },
      { streamtype: 'stdout' },
    ];
    // Started together: the pipe must keep them in call order.
    const compressed = await Promise.all(
      blocks.map((h) => compressor.compress(encodeHeaderBlock(h))),
    );
    for (const frame of compressed) expect(frame.subarray(-4).toString('hex')).toBe('0000ffff');
    // Only the first block carries the zlib header with the dictionary id.
    expect(compressed[0]?.subarray(0, 6).toString('hex')).toBe('78bbe3c6a7c2');
    expect(compressed[1]?.subarray(0, 2).toString('hex')).not.toBe('78bb');
    // The repeated block compresses to a back-reference into the shared window.
    expect(compressed[3]?.length).toBeLessThan(compressed[2]?.length ?? 0);
    for (const [index, frame] of compressed.entries()) {
      await expect(decompressor.decompress(frame)).resolves.toEqual(blocks[index]);
    }
    // A fresh context cannot read a later block: the context really is shared.
    const fresh = new HeaderDecompressor();
    await expect(fresh.decompress(compressed[1] ?? Buffer.alloc(0))).rejects.toBeInstanceOf(
      FrameError,
    );
    for (const item of [compressor, decompressor, fresh]) item.dispose();
  });

  it('produces a standard zlib stream with the SPDY/3 dictionary', async () => {
    const compressor = new HeaderCompressor();
    const one = await compressor.compress(encodeHeaderBlock({ streamtype: 'data', port: '80' }));
    const two = await compressor.compress(encodeHeaderBlock({ streamtype: 'error', port: '80' }));
    compressor.dispose();
    const plain = inflateSync(Buffer.concat([one, two]), {
      dictionary: SPDY3_DICTIONARY,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    expect(plain).toEqual(
      Buffer.concat([
        encodeHeaderBlock({ streamtype: 'data', port: '80' }),
        encodeHeaderBlock({ streamtype: 'error', port: '80' }),
      ]),
    );
  });

  it('rejects garbage, a wrong dictionary and decompression bombs', async () => {
    const garbage = new HeaderDecompressor();
    await expect(garbage.decompress(Buffer.from('not zlib at all'))).rejects.toThrow(FrameError);
    garbage.dispose();

    const wrongDictionary = deflateSync(encodeHeaderBlock({ a: 'b' }), {
      dictionary: Buffer.from('some other dictionary'),
      flush: constants.Z_SYNC_FLUSH,
    });
    const wrong = new HeaderDecompressor();
    await expect(wrong.decompress(wrongDictionary)).rejects.toThrow(FrameError);
    wrong.dispose();

    const bombBlock = Buffer.alloc(MAX_HEADER_BLOCK_LENGTH * 4);
    const bomb = deflateSync(bombBlock, {
      dictionary: SPDY3_DICTIONARY,
      flush: constants.Z_SYNC_FLUSH,
    });
    expect(bomb.length).toBeLessThan(4096);
    const victim = new HeaderDecompressor();
    await expect(victim.decompress(bomb)).rejects.toThrow(/larger than/);
    // And it stays failed: the shared context is gone.
    await expect(victim.decompress(bomb)).rejects.toThrow(/larger than/);
    victim.dispose();
  });

  it('rejects work after dispose', async () => {
    const compressor = new HeaderCompressor();
    compressor.dispose();
    await expect(compressor.compress(encodeHeaderBlock({}))).rejects.toThrow(/closed/);
  });
});
