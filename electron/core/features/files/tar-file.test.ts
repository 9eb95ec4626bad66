import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { TarFileStream } from './tar-file';

type Entry =
  | { name: string; type: 'file'; data: Buffer }
  | { name: string; type: 'directory' | 'symlink'; linkname?: string };

async function tarOf(entries: readonly Entry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of archive) chunks.push(chunk as Buffer);
  })();
  for (const entry of entries) {
    if (entry.type === 'file')
      archive.entry({ name: entry.name, size: entry.data.length }, entry.data);
    else
      archive.entry({
        name: entry.name,
        type: entry.type,
        ...(entry.linkname !== undefined && { linkname: entry.linkname }),
      });
  }
  archive.finalize();
  await collected;
  return Buffer.concat(chunks);
}

/** The bytes in pieces of the given sizes, repeated, as a stream. */
function inPieces(bytes: Buffer, sizes: readonly number[]): Readable {
  const pieces: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i += 1) {
    const size = sizes[i % sizes.length]!;
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(pieces);
}

async function extracted(source: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source.pipe(new TarFileStream())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('TarFileStream', () => {
  it('passes the one file of a tar through, whatever the chunks', async () => {
    const data = randomBytes(300_001);
    const tar = await tarOf([{ name: './big', type: 'file', data }]);
    for (const sizes of [[tar.length], [1], [511, 1, 513], [65_536], [7, 100_000]]) {
      expect((await extracted(inPieces(tar, sizes))).equals(data)).toBe(true);
    }
  });

  it('skips what comes before the file (a long name in a pax header) and drops what follows', async () => {
    const data = randomBytes(1024);
    const long = `./${'n'.repeat(180)}`;
    const tar = await tarOf([
      { name: './dir', type: 'directory' },
      { name: long, type: 'file', data },
      { name: './other', type: 'file', data: Buffer.from('not this') },
    ]);
    expect(tar.includes(Buffer.from('path='))).toBe(true);
    expect(await extracted(inPieces(tar, [333]))).toEqual(data);
  });

  it('gives an empty file as nothing', async () => {
    const tar = await tarOf([{ name: './empty', type: 'file', data: Buffer.alloc(0) }]);
    expect((await extracted(Readable.from([tar]))).length).toBe(0);
  });

  it('fails in words on a tar with no file, a cut one, and a damaged header', async () => {
    const noFile = await tarOf([{ name: './link', type: 'symlink', linkname: 'x' }]);
    await expect(extracted(Readable.from([noFile]))).rejects.toThrow('tar sent no file.');
    const tar = await tarOf([{ name: './f', type: 'file', data: randomBytes(4096) }]);
    await expect(extracted(Readable.from([tar.subarray(0, 2048)]))).rejects.toThrow(
      'tar sent less of the file than its header said.',
    );
    const damaged = Buffer.from(tar);
    damaged[0] = damaged[0]! ^ 0xff;
    await expect(extracted(Readable.from([damaged]))).rejects.toThrow('tar sent a damaged header.');
    await expect(extracted(Readable.from([Buffer.alloc(0)]))).rejects.toThrow('tar sent no file.');
  });
});
