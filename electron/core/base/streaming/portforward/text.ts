import type { Readable } from 'node:stream';

/** Error texts are one line from the runtime; keep at most this much of one. */
export const MAX_ERROR_TEXT = 4096;

/**
 * Reads a stream to its end and resolves with at most `limit` bytes of it as text. Reading
 * goes on past the limit (and the rest is dropped) so a chatty peer can't stall a session
 * whose flow control is shared by every stream. Resolves, never rejects: on an error or an
 * early close, with what arrived until then.
 */
export function collectText(stream: Readable, limit = MAX_ERROR_TEXT): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      stream.off('data', onData);
      stream.off('end', finish);
      stream.off('close', finish);
      stream.off('error', finish);
      resolve(Buffer.concat(chunks).toString('utf8').trim());
    };
    const onData = (chunk: Buffer): void => {
      if (size >= limit) return;
      const piece = chunk.subarray(0, limit - size);
      chunks.push(piece);
      size += piece.length;
    };
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('close', finish);
    stream.once('error', finish);
  });
}
