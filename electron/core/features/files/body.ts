/**
 * A download's body: what the source gave, passed on as soon as the reader asks, with
 * everything that queued up meanwhile joined into one chunk. A SPDY stream gives ~60 KiB
 * pieces; a reader that writes each to disk on its own (Node's file stream pauses its
 * pipe after every piece above its 16 KiB mark) made a 100 MiB download some 1700 awaited
 * disk writes. Joining only the backlog adds no wait for a fast reader and bounds the
 * pieces by the high-water marks, so memory stays bounded too.
 */
import { Duplex } from 'node:stream';

type Callback = (error?: Error | null) => void;

export class JoiningPassThrough extends Duplex {
  /** The last write's callback, held while the reader is full. */
  private waiting: Callback | undefined;

  constructor(highWaterMark = 1024 * 1024) {
    super({ readableHighWaterMark: highWaterMark, writableHighWaterMark: highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: Callback): void {
    this.pass(chunk, done);
  }

  override _writev(chunks: { chunk: Buffer }[], done: Callback): void {
    this.pass(
      chunks.length === 1 ? chunks[0]!.chunk : Buffer.concat(chunks.map((c) => c.chunk)),
      done,
    );
  }

  override _final(done: Callback): void {
    this.push(null);
    done();
  }

  override _read(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  override _destroy(error: Error | null, done: Callback): void {
    this.waiting = undefined;
    done(error);
  }

  private pass(chunk: Buffer, done: Callback): void {
    if (this.push(chunk)) done();
    else this.waiting = done;
  }
}
