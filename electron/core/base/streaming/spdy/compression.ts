import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import type { Disposable } from '../../../../../shared/lifecycle';
import { SPDY3_DICTIONARY } from './dictionary';
import { FrameError } from './frames';

/**
 * SPDY/3 name/value header blocks (section 2.6.10) and their compression.
 *
 * A block is `count(32) { nameLength(32) name valueLength(32) value }*`, and every block a
 * side sends goes through ONE zlib deflate context per direction for the whole session,
 * seeded with the SPDY/3 dictionary and sync-flushed after each block. The context is shared
 * across frames, so blocks must be compressed in exactly the order their frames hit the wire
 * (the session serializes SYN_STREAM emission for that reason), and every received block
 * must be inflated, in order, even when we ignore its content.
 */

export type HeaderMap = Readonly<Record<string, string>>;

/** Builds the uncompressed block. Names must already be lowercase and unique. */
export function encodeHeaderBlock(headers: HeaderMap): Buffer {
  const entries = Object.entries(headers).map(
    ([name, value]) => [Buffer.from(name, 'utf8'), Buffer.from(value, 'utf8')] as const,
  );
  const size = entries.reduce((sum, [name, value]) => sum + 8 + name.length + value.length, 4);
  const block = Buffer.allocUnsafe(size);
  block.writeUInt32BE(entries.length, 0);
  let offset = 4;
  for (const [name, value] of entries) {
    block.writeUInt32BE(name.length, offset);
    name.copy(block, offset + 4);
    offset += 4 + name.length;
    block.writeUInt32BE(value.length, offset);
    value.copy(block, offset + 4);
    offset += 4 + value.length;
  }
  return block;
}

/**
 * Parses an uncompressed block, strictly: the block must be consumed exactly, names must be
 * non-empty, lowercase and unique (the spec makes anything else a protocol error). A value
 * with several NUL-separated parts is kept as one string, NULs included.
 */
export function decodeHeaderBlock(block: Buffer): HeaderMap {
  const fail = (why: string): never => {
    throw new FrameError(`Malformed header block: ${why}`);
  };
  if (block.length < 4) fail('shorter than its count');
  const count = block.readUInt32BE(0);
  // Each pair takes at least 8 bytes: reject absurd counts before looping over them.
  if (count > (block.length - 4) / 8) fail(`${count} pairs do not fit in ${block.length} bytes`);
  const headers = new Map<string, string>();
  let offset = 4;
  const readString = (): string => {
    if (offset + 4 > block.length) fail('truncated length');
    const length = block.readUInt32BE(offset);
    offset += 4;
    if (offset + length > block.length) fail('truncated string');
    const text = block.toString('utf8', offset, offset + length);
    offset += length;
    return text;
  };
  for (let index = 0; index < count; index++) {
    const name = readString();
    const value = readString();
    if (name === '') fail('empty header name');
    if (name !== name.toLowerCase()) fail(`header name ${JSON.stringify(name)} is not lowercase`);
    if (headers.has(name)) fail(`duplicate header ${JSON.stringify(name)}`);
    headers.set(name, value);
  }
  if (offset !== block.length) fail(`${block.length - offset} bytes after the last header`);
  return Object.fromEntries(headers);
}

/** Largest compressed/inflated header block we accept from the peer. */
export const MAX_HEADER_BLOCK_LENGTH = 256 * 1024;

interface Pending {
  readonly resolve: (output: Buffer) => void;
  readonly reject: (error: Error) => void;
}

/**
 * One zlib context used as a strict request/response pipe: one block in, its sync-flushed
 * output out, one block at a time (calls queue up behind each other). Node emits a chunk's
 * output before the chunk's write callback, so whatever arrived by the callback belongs to
 * that block; callers double-check framing (deflate: the sync-flush marker; inflate: the
 * block must parse exactly).
 */
class ZlibPipe implements Disposable {
  private chain: Promise<unknown> = Promise.resolve();
  private output: Buffer[] = [];
  private outputLength = 0;
  private pending: Pending | undefined;
  private failure: Error | undefined;
  private disposed = false;

  constructor(
    private readonly zlib: Deflate | Inflate,
    private readonly what: string,
    private readonly maxOutput: number,
  ) {
    zlib.on('data', this.onData);
    zlib.on('error', this.onError);
  }

  process(input: Buffer): Promise<Buffer> {
    const result = this.chain.then(() => this.processOne(input));
    // The chain only orders the calls; each caller handles its own failure.
    this.chain = result.catch(() => undefined);
    return result;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.fail(new Error(`${this.what} closed`));
    this.zlib.off('data', this.onData);
    // Errors from a context being torn down mean nothing any more.
    this.zlib.off('error', this.onError);
    this.zlib.on('error', () => undefined);
    this.zlib.destroy();
  }

  private processOne(input: Buffer): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      if (this.failure) {
        reject(this.failure);
        return;
      }
      this.pending = { resolve, reject };
      this.zlib.write(input, (error) => {
        const pending = this.pending;
        this.pending = undefined;
        if (pending === undefined) return; // failed meanwhile: already rejected
        if (error) {
          this.fail(error, pending);
          return;
        }
        const output = Buffer.concat(this.output, this.outputLength);
        this.output = [];
        this.outputLength = 0;
        pending.resolve(output);
      });
    });
  }

  private readonly onData = (chunk: Buffer): void => {
    this.output.push(chunk);
    this.outputLength += chunk.length;
    if (this.outputLength > this.maxOutput) {
      // A decompression bomb (or a runaway peer): stop before buffering any more.
      this.fail(new FrameError(`${this.what}: header block larger than ${this.maxOutput} bytes`));
      this.zlib.pause();
    }
  };

  private readonly onError = (error: Error): void => {
    this.fail(error);
  };

  private fail(error: Error, pending = this.pending): void {
    this.failure ??= error;
    this.pending = undefined;
    this.output = [];
    this.outputLength = 0;
    pending?.reject(this.failure);
  }
}

/** The sending side's deflate context. */
export class HeaderCompressor implements Disposable {
  private readonly pipe = new ZlibPipe(
    createDeflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH }),
    'header compressor',
    Number.MAX_SAFE_INTEGER,
  );

  /** Compresses one block; resolves in call order. */
  async compress(block: Buffer): Promise<Buffer> {
    const output = await this.pipe.process(block);
    // Z_SYNC_FLUSH ends every flushed block with an empty stored block: 00 00 ff ff.
    if (output.length < 4 || output.readUInt32BE(output.length - 4) !== 0xffff) {
      throw new Error('Header compression produced an unterminated block');
    }
    return output;
  }

  dispose(): void {
    this.pipe.dispose();
  }
}

/** The receiving side's inflate context. */
export class HeaderDecompressor implements Disposable {
  private readonly pipe = new ZlibPipe(
    createInflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH }),
    'header decompressor',
    MAX_HEADER_BLOCK_LENGTH,
  );

  /** Inflates and parses one block. Rejects with FrameError for anything malformed. */
  async decompress(compressed: Buffer): Promise<HeaderMap> {
    if (compressed.length === 0) throw new FrameError('Empty compressed header block');
    let block: Buffer;
    try {
      block = await this.pipe.process(compressed);
    } catch (error) {
      if (error instanceof FrameError) throw error;
      throw new FrameError(`Header block does not inflate: ${(error as Error).message}`);
    }
    return decodeHeaderBlock(block);
  }

  dispose(): void {
    this.pipe.dispose();
  }
}
