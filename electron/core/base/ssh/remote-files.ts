/**
 * Container log files on a remote node, read over SFTP: no shell, no command line, so a
 * path can't be an injection. Following a file polls its size (SFTP has no change
 * notifications) and reads what was appended.
 *
 * Rotation without inodes: SFTP v3 (OpenSSH's sftp-server) reports no inode number, so
 * "is the path still the file we hold open?" is answered from the open handle instead:
 * fstat(handle), stat(path), fstat(handle) again. If the handle did not change between its
 * two fstats but the path's attributes differ from it, the path names another file: the log
 * was rotated (renamed away, a new one created). The rest of the old file is read first,
 * then the new file from its start. A handle whose size drops below our offset was
 * truncated in place (copytruncate) and is read again from 0.
 */
import { AppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type { SFTPWrapper, Stats } from './ssh2';

/** SFTP status codes (draft-ietf-secsh-filexfer-02). */
const noSuchFile = 2;
const permissionDenied = 3;

export interface RemoteFileStat {
  readonly size: number;
  /** Seconds resolution: SFTP v3 carries whole seconds. */
  readonly mtimeMs: number;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/** An open remote file. Dispose closes the handle. */
export interface RemoteFile extends Disposable {
  readonly path: string;
  stat(): Promise<RemoteFileStat>;
  /** Up to `length` bytes at `offset`; fewer (or none) at the end of the file. */
  read(offset: number, length: number): Promise<Buffer>;
}

export interface FollowOptions {
  /** Byte offset to start from; `'end'` to show only what is appended from now on. Default 0. */
  readonly fromOffset?: number | 'end';
  /** How often the size is checked once everything was read. Default 500 ms. */
  readonly pollIntervalMs?: number;
  /** Largest chunk handed to `onChunk`. Default 64 KiB. */
  readonly chunkSize?: number;
  /** The file was rotated (a new file at the path) or truncated; reading restarts at 0. */
  readonly onRotate?: (how: 'rotated' | 'truncated') => void;
  /** Following stopped for good (file gone, connection lost). Not called after dispose. */
  readonly onError?: (error: AppError) => void;
}

/**
 * Receives the file's bytes in order. `offset` is where the chunk starts in the current
 * file. Returning a promise holds further reads until it settles: the consumer's pace
 * (a renderer acknowledging what it drew) limits how fast the file is read.
 */
export type ChunkHandler = (chunk: Buffer, offset: number) => void | Promise<void>;

function toStat(stats: Stats): RemoteFileStat {
  return {
    size: stats.size,
    mtimeMs: stats.mtime * 1000,
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
  };
}

function sameFile(a: RemoteFileStat, b: RemoteFileStat): boolean {
  return (
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.mode === b.mode &&
    a.uid === b.uid &&
    a.gid === b.gid
  );
}

const permissionHints = {
  read: 'Container logs are usually readable by root only: log in as root, or give your user read access to the log directory.',
  create:
    'Log in as a user who may write there (usually root), or choose a directory that user may write.',
} as const;

/**
 * SFTP failures in words, naming the node and the path: of reading a file, or of
 * creating a directory.
 */
export function toFileError(
  error: unknown,
  node: string,
  path: string,
  doing: 'read' | 'create' = 'read',
): AppError {
  if (error instanceof AppError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === noSuchFile && doing === 'read') {
    return new AppError({ code: 'not-found', message: `There is no file ${path} on ${node}.` });
  }
  if (code === permissionDenied) {
    return new AppError({
      code: 'permission-denied',
      message: `The SSH user may not ${doing} ${path} on ${node}.`,
      hint: permissionHints[doing],
    });
  }
  return new AppError({
    code: 'unavailable',
    message: `${doing === 'read' ? 'Reading' : 'Creating'} ${path} on ${node} failed.`,
    detail: error instanceof Error ? error.message : String(error),
  });
}

function notADirectory(node: string, path: string): AppError {
  return new AppError({
    code: 'failed-precondition',
    message: `${path} on ${node} exists and is not a directory.`,
  });
}

/** Promise forms of the few SFTP calls used here. */
export class SftpFiles {
  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly node: string,
  ) {}

  stat(path: string): Promise<RemoteFileStat> {
    return new Promise((resolve, reject) =>
      this.sftp.stat(path, (error, stats) =>
        error ? reject(toFileError(error, this.node, path)) : resolve(toStat(stats)),
      ),
    );
  }

  /** The raw stats (isSocket() and friends), for the runtime probe. */
  rawStat(path: string): Promise<Stats> {
    return new Promise((resolve, reject) =>
      this.sftp.stat(path, (error, stats) => (error ? reject(error) : resolve(stats))),
    );
  }

  /**
   * `mkdir -p` over SFTP: creates each missing directory of an absolute path (mode 0755),
   * leaving existing ones alone. A part that exists but is not a directory, or one the SSH
   * user may not create, fails with an AppError naming it.
   */
  async makeDirectories(path: string): Promise<void> {
    const parts = path.split('/').filter((part) => part !== '');
    let current = '';
    for (const part of parts) {
      current += `/${part}`;
      const existing = await this.rawStat(current).catch((error: unknown) => {
        if ((error as { code?: unknown }).code === noSuchFile) return undefined;
        throw toFileError(error, this.node, current, 'create');
      });
      if (existing !== undefined) {
        if (!existing.isDirectory()) throw notADirectory(this.node, current);
        continue;
      }
      await new Promise<void>((resolve, reject) =>
        this.sftp.mkdir(current, { mode: 0o755 }, (error) => (error ? reject(error) : resolve())),
      ).catch(async (error: unknown) => {
        // Created meanwhile by someone else (the runtime, another call): fine if a directory.
        // If it can't even be looked at, the mkdir's own error below is the one to report.
        const now = await this.rawStat(current).catch(() => undefined);
        if (now?.isDirectory() === true) return;
        throw toFileError(error, this.node, current, 'create');
      });
    }
  }

  realpath(path: string): Promise<string> {
    return new Promise((resolve, reject) =>
      this.sftp.realpath(path, (error, resolved) => (error ? reject(error) : resolve(resolved))),
    );
  }

  async open(path: string): Promise<RemoteFile> {
    const handle = await new Promise<Buffer>((resolve, reject) =>
      this.sftp.open(path, 'r', (error, opened) =>
        error ? reject(toFileError(error, this.node, path)) : resolve(opened),
      ),
    );
    let closed = false;
    return {
      path,
      stat: () =>
        new Promise((resolve, reject) =>
          this.sftp.fstat(handle, (error, stats) =>
            error ? reject(toFileError(error, this.node, path)) : resolve(toStat(stats)),
          ),
        ),
      read: (offset, length) =>
        new Promise((resolve, reject) => {
          const buffer = Buffer.allocUnsafe(length);
          this.sftp.read(handle, buffer, 0, length, offset, (error, bytesRead) =>
            error
              ? reject(toFileError(error, this.node, path))
              : resolve(buffer.subarray(0, bytesRead)),
          );
        }),
      dispose: () => {
        if (closed) return;
        closed = true;
        this.sftp.close(handle, () => {});
      },
    };
  }

  /** A byte range of a file (at most `length` bytes, fewer at its end). */
  async readRange(path: string, offset: number, length: number): Promise<Buffer> {
    const file = await this.open(path);
    try {
      const parts: Buffer[] = [];
      let position = offset;
      let left = length;
      while (left > 0) {
        const chunk = await file.read(position, Math.min(left, 256 * 1024));
        if (chunk.length === 0) break;
        parts.push(chunk);
        position += chunk.length;
        left -= chunk.length;
      }
      return Buffer.concat(parts);
    } finally {
      file.dispose();
    }
  }
}

/** A running follow; `stop(error)` ends it from outside (the connection dropped). */
export class FileFollower implements Disposable {
  private stopped = false;
  private file: RemoteFile | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly node: string,
    private readonly files: () => Promise<SftpFiles>,
    private readonly path: string,
    private readonly options: FollowOptions,
    private readonly onChunk: ChunkHandler,
  ) {
    this.run().catch((error: unknown) => this.stop(toFileError(error, node, path)));
  }

  /** Stops following and reports `error` (once), unless already disposed. */
  stop(error: AppError): void {
    if (this.stopped) return;
    this.dispose();
    this.options.onError?.(error);
  }

  dispose(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.file?.dispose();
    this.file = undefined;
    this.wake?.();
  }

  private async run(): Promise<void> {
    const files = await this.files();
    let file = await this.openFile(files);
    if (file === undefined) return;
    const first = await file.stat();
    const from = this.options.fromOffset ?? 0;
    let offset = from === 'end' ? first.size : Math.min(from, first.size);
    const chunkSize = this.options.chunkSize ?? 64 * 1024;

    while (!this.stopped) {
      const chunk = await file.read(offset, chunkSize);
      if (this.stopped) return;
      if (chunk.length > 0) {
        const at = offset;
        offset += chunk.length;
        await this.onChunk(chunk, at);
        continue;
      }
      // At the end of what we hold open: truncated, rotated, or just nothing new yet?
      const before = await file.stat();
      if (before.size < offset) {
        offset = 0;
        this.options.onRotate?.('truncated');
        continue;
      }
      if (before.size > offset) continue;
      // Nothing at the path (rotated away, not yet recreated) is an answer, not a failure.
      const atPath = await files.stat(this.path).catch(() => undefined);
      const after = await file.stat();
      if (this.stopped) return;
      if (atPath !== undefined && sameFile(before, after) && !sameFile(atPath, before)) {
        file.dispose();
        const next = await this.openFile(files);
        if (next === undefined) return;
        file = next;
        offset = 0;
        this.options.onRotate?.('rotated');
        continue;
      }
      await this.sleep(this.options.pollIntervalMs ?? 500);
    }
  }

  private async openFile(files: SftpFiles): Promise<RemoteFile | undefined> {
    const file = await files.open(this.path);
    if (this.stopped) {
      file.dispose();
      return undefined;
    }
    this.file = file;
    return file;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
