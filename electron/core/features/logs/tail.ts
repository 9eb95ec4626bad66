/**
 * Where the last N lines of a file start, found by reading it backwards in blocks: a
 * `tail -n 100` of a gigabyte log reads a few kilobytes, which matters over SSH.
 */
import { newline } from './cri-format';
import type { ReadableFile } from '../../base/files/files';

const blockSize = 64 * 1024;

/**
 * The byte offset where the last `lines` lines of `file[0, size)` begin (0 when it has
 * fewer). A last line without a newline (still being written) counts as a line.
 */
export async function tailStart(file: ReadableFile, size: number, lines: number): Promise<number> {
  if (lines <= 0) return size;
  // A newline as the file's last byte ends the last line; it doesn't start another.
  let end = size;
  if (size > 0) {
    const last = await file.read(size - 1, 1);
    if (last[0] === newline) end = size - 1;
  }
  let found = 0;
  while (end > 0) {
    const from = Math.max(0, end - blockSize);
    const block = await file.read(from, end - from);
    // Short reads (the file shrank under us): start over from what is there.
    if (block.length < end - from) return 0;
    let at = block.length;
    for (;;) {
      const newlineAt = at === 0 ? -1 : block.lastIndexOf(newline, at - 1);
      if (newlineAt < 0) break;
      found += 1;
      if (found === lines) return from + newlineAt + 1;
      at = newlineAt;
    }
    end = from;
  }
  return 0;
}
