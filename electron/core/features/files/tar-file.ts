/**
 * The first regular file's bytes out of a tar stream, as a Transform that passes them on
 * as views of the chunks that came in. A single-file download is `tar -ch` of that one
 * file (what "Copy as crictl" gives), and the user wants the file: tar-stream's extract
 * would do, but it re-chunks each entry through its own streams and an async iterator per
 * entry, which made a 100 MiB download twice as slow as the exec under it. Only what a
 * tar of one file holds is read here: metadata entries (GNU long names, pax headers) are
 * skipped, the file's data passed, everything after it dropped.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../../../../shared/errors';

const block = 512;

/** A header's size field: octal text, or base-256 when its first bit is set (≥ 8 GiB). */
function entrySize(header: Buffer): number {
  const field = header.subarray(124, 136);
  if ((field[0]! & 0x80) !== 0) {
    let size = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i += 1) size = size * 256 + field[i]!;
    return size;
  }
  const text = field
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

/** The header's own checksum: its bytes summed with the checksum field read as spaces. */
function validHeader(header: Buffer): boolean {
  let sum = 8 * 0x20;
  for (let i = 0; i < block; i += 1) if (i < 148 || i >= 156) sum += header[i]!;
  const stored = Number.parseInt(header.toString('latin1', 148, 156).replace(/\0/g, ' ').trim(), 8);
  return stored === sum;
}

function broken(message: string): AppError {
  return new AppError({ code: 'internal', message: `tar sent ${message}.` });
}

export class TarFileStream extends Transform {
  /** A header's bytes so far, when it spans chunks. */
  private header = Buffer.alloc(block);
  private headerBytes = 0;
  /** Bytes left of the current entry's data, and of its padding to a block. */
  private data = 0;
  private padding = 0;
  /** Whether the current entry's data is the file's (passed on) or skipped. */
  private passing = false;
  private state: 'before' | 'file' | 'after' = 'before';

  constructor(options: { readonly highWaterMark?: number } = {}) {
    super({ readableHighWaterMark: options.highWaterMark ?? 256 * 1024 });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.consume(chunk);
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    if (this.state === 'before') done(broken('no file'));
    else if (this.state === 'file') done(broken('less of the file than its header said'));
    else done();
  }

  private consume(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && this.state !== 'after') {
      if (this.data > 0) {
        const take = Math.min(this.data, chunk.length - at);
        if (this.passing) this.push(chunk.subarray(at, at + take));
        this.data -= take;
        at += take;
        if (this.data === 0 && this.passing) this.state = 'after';
      } else if (this.padding > 0) {
        const take = Math.min(this.padding, chunk.length - at);
        this.padding -= take;
        at += take;
      } else {
        const take = Math.min(block - this.headerBytes, chunk.length - at);
        chunk.copy(this.header, this.headerBytes, at, at + take);
        this.headerBytes += take;
        at += take;
        if (this.headerBytes === block) {
          this.headerBytes = 0;
          this.entry();
        }
      }
    }
  }

  private entry(): void {
    const header = this.header;
    if (header.every((byte) => byte === 0)) {
      // The archive's end, before any file.
      throw broken('no file');
    }
    if (!validHeader(header)) throw broken('a damaged header');
    const size = entrySize(header);
    const type = header[156];
    // '0', NUL (old tars) and '7' (contiguous) are regular files.
    const isFile = type === 0x30 || type === 0 || type === 0x37;
    this.passing = isFile;
    this.data = size;
    this.padding = (block - (size % block)) % block;
    if (isFile) {
      this.state = 'file';
      if (size === 0) this.state = 'after';
    }
  }
}
