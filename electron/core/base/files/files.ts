/**
 * A node's files: this machine's with node:fs, an SSH node's over SFTP (see
 * ssh/remote-files). Container logs are the only files Porthole reads, and their
 * directories the only ones it creates (before CreateContainer, as the kubelet does).
 */
import { mkdir, open, stat } from 'node:fs/promises';
import { AppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type { SessionTransport } from '../../../../shared/model';
import type { ChunkHandler, FollowOptions, SshNodeConnection } from '../ssh';
import { toLocalDirectoryError, toLocalFileError } from './file-errors';
import { LocalFileFollower } from './local-follow';
import { logger } from '../log';

const filesLog = logger('files');

/** An open file, read at offsets. Dispose closes it. */
export interface ReadableFile extends Disposable {
  size(): Promise<number>;
  /** Up to `length` bytes at `offset`; fewer (or none) at the end of the file. */
  read(offset: number, length: number): Promise<Buffer>;
}

export interface NodeFiles {
  readonly transport: Extract<SessionTransport, 'file' | 'sftp'>;
  open(path: string): Promise<ReadableFile>;
  /** Whether something is at the path now (a log being rotated may briefly be missing). */
  exists(path: string): Promise<boolean>;
  /** Reads the file from `options.fromOffset` and then what is appended, across rotation. */
  follow(path: string, options: FollowOptions, onChunk: ChunkHandler): Disposable;
  /** `mkdir -p`: the directory and its missing parents; existing ones are fine. */
  makeDirectory(path: string): Promise<void>;
}

/** This machine's files. */
export const localFiles: NodeFiles = {
  transport: 'file',
  async open(path) {
    const handle = await open(path, 'r').catch((error: unknown) => {
      throw toLocalFileError(error, path);
    });
    let closed = false;
    return {
      size: async () => (await handle.stat()).size,
      read: async (offset, length) => {
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle
          .read(buffer, 0, length, offset)
          .catch((error: unknown) => {
            throw toLocalFileError(error, path);
          });
        return buffer.subarray(0, bytesRead);
      },
      dispose: () => {
        if (closed) return;
        closed = true;
        handle.close().catch(filesLog.failure(`Closing ${path} failed`));
      },
    };
  },
  async exists(path) {
    return stat(path).then(
      () => true,
      () => false,
    );
  },
  follow(path, options, onChunk) {
    return new LocalFileFollower(path, options, onChunk);
  },
  async makeDirectory(path) {
    await mkdir(path, { recursive: true, mode: 0o755 }).catch((error: unknown) => {
      throw toLocalDirectoryError(error, path);
    });
  },
};

/** The file access of an SSH connection (SFTP). */
export type SshFileAccess = Pick<
  SshNodeConnection,
  'openRemoteFile' | 'followRemoteFile' | 'makeRemoteDirectory'
>;

/** An SSH node's files, over its connection's SFTP session. */
export function sshFiles(connection: SshFileAccess): NodeFiles {
  return {
    transport: 'sftp',
    async open(path) {
      const file = await connection.openRemoteFile(path);
      return {
        size: async () => (await file.stat()).size,
        read: (offset, length) => file.read(offset, length),
        dispose: () => file.dispose(),
      };
    },
    async exists(path) {
      try {
        (await connection.openRemoteFile(path)).dispose();
        return true;
      } catch (error) {
        // Only "no such file" means missing; a dropped connection is not an answer.
        if (error instanceof AppError && error.code === 'not-found') return false;
        throw error;
      }
    },
    follow: (path, options, onChunk) => connection.followRemoteFile(path, options, onChunk),
    makeDirectory: (path) => connection.makeRemoteDirectory(path),
  };
}
