import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';

/**
 * A container's files, reached with nothing but the CRI: listings with ExecSync (`sh` and
 * `stat`), downloads as `tar -c` (or `cat` for a single file without tar) streamed from
 * an exec's stdout, uploads as a tar stream into `tar -x` on an exec's stdin. A container
 * with no shell is reached through a running debug container of it, at `/proc/<pid>/root`.
 */

export type FileEntryType = 'file' | 'directory' | 'symlink' | 'socket' | 'fifo' | 'block' | 'char';

export interface FileEntry {
  /** As the container names it, decoded as UTF-8 (bytes that are not UTF-8 show as �). */
  readonly name: string;
  /** The name is not valid UTF-8: it is shown, but can't be named back to the container. */
  readonly undecodable?: boolean;
  readonly type: FileEntryType;
  readonly size: number;
  /** Permission bits, e.g. 0o755 (with setuid/setgid/sticky). */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  /** The owner's and group's names where the container's passwd and group files know them. */
  readonly owner?: string;
  readonly group?: string;
  readonly modifiedAt: EpochMillis;
  /** A symlink's target, as written. */
  readonly linkTarget?: string;
}

/** How the files of a container are reached, in words the view shows. */
export interface FilesAccess {
  /** `direct`: in the container itself; `debug`: through a debug container's /proc/<pid>/root. */
  readonly via: 'direct' | 'debug';
  /** The debug container used, for `debug`. */
  readonly debugContainerId?: string;
  /** Whether the container (or the one used) has `tar`: without it only single files move. */
  readonly tar: boolean;
  /** Whether it has `sha256sum`, to check what moved. */
  readonly sha256: boolean;
  /** One sentence when not direct, or something is missing (no tar). */
  readonly note?: string;
}

export interface FilesListRequest {
  readonly nodeId: string;
  readonly containerId: string;
  /** An absolute path in the container. */
  readonly path: string;
}

export interface FilesListing {
  /** The directory listed, as given (normalised: no trailing slash, no `.` or `..`). */
  readonly path: string;
  readonly entries: readonly FileEntry[];
  /** More entries than a listing holds (`filesLimits.maxEntries`): the first ones only. */
  readonly truncated: boolean;
  readonly access: FilesAccess;
}

export interface FilesDownloadRequest {
  readonly nodeId: string;
  readonly containerId: string;
  /** The file or directory to download: a directory comes as a .tar, a file as itself. */
  readonly path: string;
}

export interface FilesUploadRequest {
  readonly nodeId: string;
  readonly containerId: string;
  /** The directory they go into. */
  readonly directory: string;
  /**
   * The files, in the order their bytes will be written; `path` is relative
   * (`notes.txt`, or `folder/sub/notes.txt` for a folder's files).
   */
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

/**
 * waiting → running → (verifying) → done | failed | cancelled. `verifying` is the second
 * phase of a checked transfer: every byte has moved, but not yet to where it is kept. A
 * download's last byte is with the page, whose browser keeps the file under a temporary
 * name until the body ends; an upload is unpacked in the container, in a hidden directory
 * beside the target. The container's sha256sum is compared meanwhile, and only a match
 * puts the file in place (the body ends, the upload is moved in): a mismatch fails the
 * transfer and nothing is kept.
 */
export type TransferState = 'waiting' | 'running' | 'verifying' | 'done' | 'failed' | 'cancelled';

/** One download or upload, as the transfers list and its progress bars show it. */
export interface FileTransfer {
  readonly transferId: string;
  readonly direction: 'download' | 'upload';
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
  /** What moves: the path downloaded, or the directory uploaded into. */
  readonly path: string;
  /** The download's file name (`etc.tar`, `hosts`); for an upload, what was sent. */
  readonly fileName: string;
  /** How it moves: `tar`, or `cat` for a single file where there is no tar. */
  readonly method: 'tar' | 'cat';
  readonly via: FilesAccess['via'];
  /** The download's address (same origin as the app) while it waits to be fetched. */
  readonly url?: string;
  readonly state: TransferState;
  readonly bytes: number;
  /** Expected bytes where known (a file's size, the files uploaded; a directory's estimate). */
  readonly totalBytes?: number;
  /** Bytes per second over the last few seconds; once the bytes are done, over their phase. */
  readonly rate: number;
  readonly startedAt: EpochMillis;
  /** When the last byte moved (the bytes phase ended; see `TransferState`). */
  readonly bytesDoneAt?: EpochMillis;
  readonly endedAt?: EpochMillis;
  /** The file's sha256 as computed on the way, and whether the container's agreed. */
  readonly sha256?: string;
  readonly checksum?: 'match' | 'mismatch' | 'unchecked';
  readonly error?: AppErrorData;
  /** The same transfer with crictl, for a shell on the node. */
  readonly crictl: string;
}

export const filesLimits = {
  /** Entries in one listing. */
  maxEntries: 5000,
  /** Files in one upload. */
  maxUploadFiles: 10_000,
  /** Bytes one transfer may move (a download's stream is cut, with an error, past it). */
  maxTransferBytes: 8 * 1024 ** 3,
  /** Largest piece of an upload in one `files.write`. */
  maxChunkBytes: 512 * 1024,
  /** `files.write`s of one upload that may be on their way at once (applied in call order). */
  writesInFlight: 4,
  /** Ended transfers kept for the list. */
  keptTransfers: 50,
} as const;
