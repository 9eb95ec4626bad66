import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { JoiningPassThrough } from './body';

describe('JoiningPassThrough', () => {
  it('passes a chunk on at once to a reader that keeps up', async () => {
    const body = new JoiningPassThrough(1024);
    const read = once(body, 'data');
    body.write(Buffer.from('abc'));
    expect((await read)[0]).toEqual(Buffer.from('abc'));
  });

  it('joins what queued while the reader was full into one chunk, and ends after it', async () => {
    const body = new JoiningPassThrough(1024);
    body.pause();
    // The first two fill the readable side; the rest wait on the writable side, bounded.
    expect(body.write(Buffer.alloc(1000, 1))).toBe(true);
    const accepted = [2, 3, 4].map((fill) => body.write(Buffer.alloc(400, fill)));
    expect(accepted).toEqual([true, true, false]);
    body.end();
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.resume();
    await once(body, 'end');
    expect(chunks.map((chunk) => chunk.length)).toEqual([1000, 400, 800]);
    expect(Buffer.concat(chunks)).toEqual(
      Buffer.concat([Buffer.alloc(1000, 1), ...[2, 3, 4].map((fill) => Buffer.alloc(400, fill))]),
    );
  });

  it('errors its reader when destroyed with a reason', async () => {
    const body = new JoiningPassThrough();
    const failed = once(body, 'error');
    body.destroy(new Error('checksum mismatch'));
    expect(((await failed)[0] as Error).message).toBe('checksum mismatch');
  });
});
