/**
 * Following a log file on this machine: read what is there, then what is appended, woken
 * by fs.watch on the file's directory (which also sees renames and new files) and by a
 * poll in case the file system sends no notifications.
 *
 * Rotation: the kubelet renames `0.log` to `0.log.<timestamp>` and asks the runtime to
 * reopen its log (ReopenContainerLog), which creates a new `0.log`. Once a different file
 * (another inode) is at the path, the rest of the old one is read, then the new one from
 * its start. While nothing is at the path, the old file is read on: the runtime keeps
 * writing to it until it reopens. A file whose size drops below what was read was
 * truncated in place (copytruncate) and is read again from its start.
 */
import { watch, type FSWatcher } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Disposable } from '../../../../shared/lifecycle';
import type { ChunkHandler, FollowOptions } from '../ssh';
import { toLocalFileError } from './file-errors';
import { logger } from '../log';

const followLog = logger('files');

const defaultChunkSize = 4 * 1024 * 1024;

export class LocalFileFollower implements Disposable {
  private stopped = false;
  private handle: FileHandle | undefined;
  private watcher: FSWatcher | undefined;
  private wake: (() => void) | undefined;
  /** A change was seen while reading: don't sleep before looking again. */
  private changed = false;

  constructor(
    private readonly path: string,
    private readonly options: FollowOptions,
    private readonly onChunk: ChunkHandler,
  ) {
    this.watch();
    this.run().catch((error: unknown) => {
      if (this.stopped) return;
      this.dispose();
      this.options.onError?.(toLocalFileError(error, path));
    });
  }

  dispose(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.watcher?.close();
    this.watcher = undefined;
    this.handle?.close().catch(followLog.failure(`Closing ${this.path} failed`));
    this.handle = undefined;
    this.wake?.();
  }

  private watch(): void {
    const name = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, file) => {
        if (file === null || file === name || file.startsWith(`${name}.`)) this.poke();
      });
      // Watching failed later (the directory went away…): the poll carries on.
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      this.watcher = undefined;
    }
  }

  private poke(): void {
    this.changed = true;
    this.wake?.();
  }

  private async openPath(): Promise<FileHandle | undefined> {
    const handle = await open(this.path, 'r');
    if (this.stopped) {
      await handle.close().catch(followLog.failure(`Closing ${this.path} failed`));
      return undefined;
    }
    this.handle = handle;
    return handle;
  }

  private async run(): Promise<void> {
    let handle = await this.openPath();
    if (handle === undefined) return;
    const first = await handle.stat();
    const from = this.options.fromOffset ?? 0;
    let offset = from === 'end' ? first.size : Math.min(from, first.size);
    const chunkSize = this.options.chunkSize ?? defaultChunkSize;
    // A new buffer for each read: the consumer may keep what it is given (see
    // LogStore.append), and reads grow to the chunk size while there is much to read.
    const readMore = async (current: FileHandle): Promise<boolean> => {
      const size = (await current.stat()).size;
      const length = Math.min(chunkSize, Math.max(64 * 1024, size - offset));
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await current.read(buffer, 0, length, offset);
      if (this.stopped || bytesRead === 0) return false;
      const at = offset;
      offset += bytesRead;
      await this.onChunk(buffer.subarray(0, bytesRead), at);
      return true;
    };

    while (!this.stopped) {
      this.changed = false;
      if (await readMore(handle)) continue;
      if (this.stopped) return;
      // At the end of what we hold open: truncated, rotated, or nothing new yet?
      const held = await handle.stat();
      if (held.size < offset) {
        offset = 0;
        this.options.onRotate?.('truncated');
        continue;
      }
      if (held.size > offset) continue;
      // Nothing at the path (rotated away, not yet recreated) is an answer, not a failure.
      const atPath = await stat(this.path).catch(() => undefined);
      if (this.stopped) return;
      if (atPath !== undefined && (atPath.ino !== held.ino || atPath.dev !== held.dev)) {
        // The runtime may have written a last line before it switched files.
        while (await readMore(handle));
        if (this.stopped) return;
        const old = handle;
        const next = await this.openPath();
        await old.close().catch(followLog.failure(`Closing the rotated ${this.path} failed`));
        if (next === undefined) return;
        handle = next;
        offset = 0;
        this.options.onRotate?.('rotated');
        continue;
      }
      if (!this.changed) await this.sleep(this.options.pollIntervalMs ?? 500);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
