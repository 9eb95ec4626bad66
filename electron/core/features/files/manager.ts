/**
 * A container's files over the CRI alone. Listings run `sh` + `stat` with ExecSync.
 * Downloads stream `tar -c` (or `cat` for a single file without tar) from an exec's
 * stdout to whoever fetches the transfer's address (the browser-mode host, Electron's app
 * protocol), with backpressure all the way: the SPDY stream is paused while the page's
 * download is behind, so nothing is held whole. A single file is taken out of its tar on
 * the way, so the user gets the file itself. Uploads build a tar stream from the page's
 * writes into `tar -x` on an exec's stdin, unpacked into a hidden directory beside the
 * target and moved into place only once whole, so a failure or cancel leaves nothing
 * half-written. Each transfer is a session of the monitor (kind `transfer`: its bytes and
 * rate; the exec under it is the transfer's own, not a terminal).
 */
import { createHash, randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { PassThrough, Readable, type Transform } from 'node:stream';
import { extract, pack, type Pack } from 'tar-stream';
import type { EventSink } from '../../../../shared/contract';
import { AppError, isAppError } from '../../../../shared/errors';
import { Emitter } from '../../../../shared/event';
import type { Disposable } from '../../../../shared/lifecycle';
import {
  filesLimits,
  type FileTransfer,
  type FilesDownloadRequest,
  type FilesListRequest,
  type FilesListing,
  type FilesUploadRequest,
} from '../../../../shared/model';
import { shellQuote } from '../../../../shared/shell';
import { logger } from '../../base/log';
import { openRemoteCommand, type RemoteCommand } from '../../base/streaming';
import type { NodeManager } from '../nodes';
import type { SessionHandle, SessionRegistry } from '../sessions';
import { resolveAccess, type Access, type DebugRoots } from './access';
import { containerPath, defaultPath, describeFailure, listScript, parseListing } from './listing';
import { TransferRecord } from './progress';

const filesLog = logger('files');

export interface FilesManagerOptions {
  readonly nodes: Pick<NodeManager, 'client' | 'nodeName' | 'dialer'>;
  readonly debug: DebugRoots;
  readonly sessions?: SessionRegistry;
  /** Bytes one transfer may move; default `filesLimits.maxTransferBytes`. */
  readonly maxTransferBytes?: number;
  /** How long a prepared download waits to be fetched; default a minute. */
  readonly unfetchedMs?: number;
  /** Default the real one; tests may swap it. */
  readonly openRemoteCommand?: typeof openRemoteCommand;
}

/** What the host (or Electron's protocol) streams to the page for one download. */
export interface DownloadBody {
  readonly fileName: string;
  readonly contentType: string;
  /** Ends once the bytes are whole and checked; errors (and is cut) otherwise. */
  readonly body: Readable;
}

/** Where a download's bytes are fetched: same origin as the app. */
export const downloadPathPrefix = '/files/download/';

const listTimeoutSeconds = 30;
const statTimeoutSeconds = 15;
/** sha256sum reads the whole file again: allow it time for a large one. */
const checksumTimeoutSeconds = 300;
const stderrCap = 8 * 1024;
/** Transfer updates go out at most this often while bytes move. */
const progressTickMs = 250;

const uploadScript = [
  defaultPath,
  'd="$1"',
  't=$(mktemp -d "$d/.porthole-upload.XXXXXX") || exit 3',
  'trap \'rm -rf "$t"\' EXIT',
  "trap 'exit 130' INT TERM HUP PIPE",
  'tar -xf - -C "$t" || exit 4',
  'for f in "$t"/* "$t"/.[!.]* "$t"/..?*; do',
  '  if [ ! -e "$f" ] && [ ! -L "$f" ]; then continue; fi',
  '  n=${f##*/}',
  '  if [ -d "$f" ] && [ -d "$d/$n" ] && [ ! -L "$d/$n" ]; then cp -a "$f/." "$d/$n/" || exit 5',
  '  elif [ -d "$d/$n" ] && [ ! -L "$d/$n" ]; then echo "$d/$n: is a directory: not replaced by a file" >&2; exit 5',
  '  else mv -f "$f" "$d/$n" || exit 5; fi',
  'done',
].join('\n');

/** Without tar: one file through cat, kept only when every byte arrived. */
const catUploadScript = [
  defaultPath,
  'p="$1"',
  't="$p.porthole-part"',
  'trap \'rm -f "$t"\' EXIT',
  "trap 'exit 130' INT TERM HUP PIPE",
  'cat > "$t" || exit 4',
  '[ "$(wc -c < "$t")" -eq "$2" ] || { echo "the upload was cut short" >&2; exit 6; }',
  'mv -f "$t" "$p" || exit 5',
].join('\n');

interface Download {
  readonly kind: 'download';
  readonly record: TransferRecord;
  readonly nodeId: string;
  readonly access: Access;
  /** The full path as the exec sees it. */
  readonly target: string;
  readonly isDirectory: boolean;
  readonly fileName: string;
  timer: NodeJS.Timeout | undefined;
  remote?: RemoteCommand;
  session?: SessionHandle;
  body?: Transform;
}

interface UploadFile {
  readonly path: string;
  readonly size: number;
}

interface Upload {
  readonly kind: 'upload';
  readonly record: TransferRecord;
  readonly nodeId: string;
  readonly access: Access;
  readonly directory: string;
  readonly files: readonly UploadFile[];
  readonly total: number;
  readonly remote: RemoteCommand;
  readonly session: SessionHandle | undefined;
  readonly stderr: StderrTail;
  /** tar mode: the pack stream into stdin. */
  readonly pack: Pack | undefined;
  /** The file being written, its entry and the bytes still due. */
  index: number;
  entry: Sink | undefined;
  due: number;
  hashes: string[];
  hash: ReturnType<typeof createHash> | undefined;
  writing: boolean;
}

type Transfer = Download | Upload;

class StderrTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(stream: Readable | undefined) {
    stream?.on('data', (chunk: Buffer) => {
      if (this.size >= stderrCap) return;
      this.chunks.push(chunk);
      this.size += chunk.byteLength;
    });
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function cancelled(message = 'Cancelled.'): AppError {
  return new AppError({ code: 'cancelled', message });
}

export class FilesManager implements Disposable {
  private readonly transfers = new Map<string, Transfer>();
  private readonly changed = new Emitter<readonly FileTransfer[]>();
  private readonly open_: typeof openRemoteCommand;
  private readonly maxBytes: number;
  private readonly unfetchedMs: number;
  private tick: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly options: FilesManagerOptions) {
    this.open_ = options.openRemoteCommand ?? openRemoteCommand;
    this.maxBytes = options.maxTransferBytes ?? filesLimits.maxTransferBytes;
    this.unfetchedMs = options.unfetchedMs ?? 60_000;
  }

  // ---- listings ---------------------------------------------------------------------

  async list(request: FilesListRequest, signal?: AbortSignal): Promise<FilesListing> {
    const path = containerPath(request.path);
    const access = await this.access(request.nodeId, request.containerId, signal);
    const client = this.options.nodes.client(request.nodeId);
    const result = await client.execSync(
      access.execIn,
      ['sh', '-c', listScript, 'sh', access.root + path],
      listTimeoutSeconds,
      signal !== undefined ? { signal } : {},
    );
    if (result.exitCode !== 0) {
      throw describeFailure(new TextDecoder().decode(result.stderr), path, 'listing');
    }
    const { entries, truncated } = parseListing(result.stdout, filesLimits.maxEntries);
    const { execIn: _e, root: _r, containerName: _n, paths: _p, ...shown } = access;
    return { path, entries, truncated, access: shown };
  }

  // ---- downloads --------------------------------------------------------------------

  async download(request: FilesDownloadRequest, signal?: AbortSignal): Promise<FileTransfer> {
    const path = containerPath(request.path);
    if (path === '/') {
      throw new AppError({
        code: 'invalid-argument',
        message: 'The whole file system can’t be downloaded at once: choose a directory.',
      });
    }
    const access = await this.access(request.nodeId, request.containerId, signal);
    const target = access.root + path;
    const client = this.options.nodes.client(request.nodeId);
    const stat = await client.execSync(
      access.execIn,
      ['sh', '-c', `${defaultPath}stat -L -c "%f %s" "$1"`, 'sh', target],
      statTimeoutSeconds,
      signal !== undefined ? { signal } : {},
    );
    if (stat.exitCode !== 0) {
      throw describeFailure(new TextDecoder().decode(stat.stderr), path, 'downloading');
    }
    const [rawMode, rawSize] = new TextDecoder().decode(stat.stdout).trim().split(' ');
    const type = Number.parseInt(rawMode ?? '0', 16) & 0o170000;
    const isDirectory = type === 0o040000;
    if (!isDirectory && type !== 0o100000) {
      throw new AppError({
        code: 'failed-precondition',
        message: `${path} is not a file or a directory: only those can be downloaded.`,
      });
    }
    if (isDirectory && !access.tar) {
      throw new AppError({
        code: 'failed-precondition',
        message: `${access.containerName} has no tar, so a directory can't be downloaded from it; single files can.`,
        hint: 'Start a debug container (Debug…, busybox has tar) and download through it.',
      });
    }
    let totalBytes: number | undefined = isDirectory ? undefined : Number(rawSize);
    if (!isDirectory && totalBytes !== undefined && totalBytes > this.maxBytes) {
      throw tooLarge(path, this.maxBytes);
    }
    if (isDirectory) totalBytes = await this.estimate(request.nodeId, access, target);
    const name = posix.basename(path);
    const fileName = isDirectory ? `${name}.tar` : name;
    const method = access.tar ? 'tar' : 'cat';
    const transferId = randomBytes(16).toString('hex');
    const record = new TransferRecord({
      transferId,
      direction: 'download',
      nodeId: request.nodeId,
      containerId: request.containerId,
      containerName: access.containerName,
      path,
      fileName,
      method,
      via: access.via,
      url: `${downloadPathPrefix}${transferId}`,
      ...(totalBytes !== undefined && { totalBytes }),
      crictl: crictlDownload(access, target, fileName, isDirectory),
    });
    const download: Download = {
      kind: 'download',
      record,
      nodeId: request.nodeId,
      access,
      target,
      isDirectory,
      fileName,
      timer: undefined,
    };
    download.timer = setTimeout(() => {
      this.finishTransfer(
        download,
        'failed',
        new AppError({
          code: 'deadline-exceeded',
          message: `The download of ${path} was not fetched within a minute.`,
        }),
      );
    }, this.unfetchedMs);
    download.timer.unref();
    this.add(download);
    return record.snapshot();
  }

  /**
   * Starts a prepared download's exec and returns its bytes; undefined for an unknown or
   * already fetched transfer (each address works once). Rejects in words when the exec
   * can't start.
   */
  async openDownload(transferId: string): Promise<DownloadBody | undefined> {
    const download = this.transfers.get(transferId);
    if (download?.kind !== 'download' || download.record.state !== 'waiting') return undefined;
    clearTimeout(download.timer);
    download.record.running();
    this.emit();
    const { access, target, isDirectory, nodeId } = download;
    const parent = posix.dirname(target);
    const base = `./${posix.basename(target)}`;
    const cmd = access.tar
      ? isDirectory
        ? [access.paths.tar, '-cf', '-', '-C', parent, base]
        : [access.paths.tar, '-chf', '-', '-C', parent, base]
      : [access.paths.cat, target];
    download.session = this.options.sessions?.register({
      kind: 'transfer',
      nodeId,
      nodeName: this.options.nodes.nodeName(nodeId),
      target: {
        description: `${access.containerName} ${download.record.snapshot().path}`,
        containerId: download.record.snapshot().containerId,
        containerName: access.containerName,
      },
      detail: `download ${download.record.snapshot().path} (${access.tar ? 'tar' : 'cat'})`,
      kill: () =>
        this.finishTransfer(download, 'cancelled', cancelled('Ended from the session monitor.')),
    });
    let remote: RemoteCommand;
    try {
      remote = await this.open_({
        cri: this.options.nodes.client(nodeId),
        kind: 'exec',
        containerId: access.execIn,
        cmd,
        tty: false,
        stdin: false,
        stdout: true,
        stderr: true,
        dialer: this.options.nodes.dialer(nodeId),
      });
    } catch (error) {
      this.finishTransfer(download, 'failed', error);
      throw error;
    }
    download.remote = remote;
    quiet(remote);
    if (download.record.ended) {
      remote.dispose();
      throw cancelled();
    }
    download.session?.update({
      state: 'active',
      transport: remote.negotiated.transport,
      protocol: remote.negotiated.protocol,
    });
    const hash = isDirectory ? undefined : createHash('sha256');
    // The body the page reads; backpressure pauses the source once it is full.
    const counter = new PassThrough({ highWaterMark: 256 * 1024 });
    download.body = counter;
    const stderr = new StderrTail(remote.stderr);
    const stdout = remote.stdout!;
    // The bytes of the one file, out of its tar (a file download comes as the file itself).
    const source = isDirectory || !access.tar ? stdout : fileOutOfTar(stdout);
    let sourceEnded = false;
    const sourceDone = new Promise<void>((resolve, reject) => {
      source.once('end', () => {
        sourceEnded = true;
        resolve();
      });
      source.once('error', reject);
    });
    sourceDone.catch(() => undefined);
    // Not ended by the source: only once the exit status (and the checksum) say it is whole.
    source.pipe(counter, { end: false });
    // Counted and hashed as the source gives them, not as the body passes them on: the
    // source can end with chunks still queued in a slow reader's body, and the digest (and
    // the bytes of a done transfer) must have them all.
    source.on('data', (chunk: Buffer) => {
      download.record.count(chunk.byteLength);
      download.session?.countIn(chunk.byteLength);
      this.scheduleTick();
      if (download.record.bytes > this.maxBytes) {
        counter.destroy(tooLarge(download.record.snapshot().path, this.maxBytes));
        return;
      }
      hash?.update(chunk);
    });
    counter.once('close', () => {
      if (!download.record.ended) {
        this.finishTransfer(
          download,
          'cancelled',
          cancelled('The download was stopped where it was being saved.'),
        );
      }
    });
    void (async () => {
      try {
        const result = await remote.result;
        if (result.exitCode !== 0) {
          throw describeFailure(
            stderr.text || result.message,
            download.record.snapshot().path,
            'downloading',
          );
        }
        await sourceDone;
        if (!sourceEnded)
          throw new AppError({ code: 'internal', message: 'The stream ended early.' });
        if (hash !== undefined) await this.verify(download, hash.digest('hex'));
        if (download.record.ended) return;
        this.finishTransfer(download, 'done');
        counter.end();
      } catch (error) {
        this.finishTransfer(download, 'failed', error);
      }
    })();
    return {
      fileName: download.fileName,
      contentType: isDirectory ? 'application/x-tar' : 'application/octet-stream',
      body: counter,
    };
  }

  // ---- uploads ----------------------------------------------------------------------

  async upload(request: FilesUploadRequest, signal?: AbortSignal): Promise<FileTransfer> {
    const directory = containerPath(request.directory, 'directory');
    const files = request.files.map((file, index) => ({
      path: uploadPath(file.path, index),
      size: file.size,
    }));
    const total = files.reduce((sum, file) => sum + file.size, 0);
    if (total > this.maxBytes) throw tooLarge(`${files.length} files`, this.maxBytes);
    const access = await this.access(request.nodeId, request.containerId, signal);
    const nested = files.length !== 1 || files[0]!.path.includes('/');
    if (!access.tar && nested) {
      throw new AppError({
        code: 'failed-precondition',
        message: `${access.containerName} has no tar: only one file at a time can be uploaded to it.`,
        hint: 'Start a debug container (Debug…, busybox has tar) and upload through it.',
      });
    }
    const target = access.root + directory;
    const cmd = access.tar
      ? ['sh', '-c', uploadScript, 'sh', target]
      : [
          'sh',
          '-c',
          catUploadScript,
          'sh',
          posix.join(target, files[0]!.path),
          String(files[0]!.size),
        ];
    const transferId = randomBytes(16).toString('hex');
    const fileName = files.length === 1 ? files[0]!.path : `${files.length} files`;
    const record = new TransferRecord({
      transferId,
      direction: 'upload',
      nodeId: request.nodeId,
      containerId: request.containerId,
      containerName: access.containerName,
      path: directory,
      fileName,
      method: access.tar ? 'tar' : 'cat',
      via: access.via,
      totalBytes: total,
      crictl: crictlUpload(access, target, files),
    });
    const session = this.options.sessions?.register({
      kind: 'transfer',
      nodeId: request.nodeId,
      nodeName: this.options.nodes.nodeName(request.nodeId),
      target: {
        description: `${access.containerName} ${directory}`,
        containerId: request.containerId,
        containerName: access.containerName,
      },
      detail: `upload ${fileName} to ${directory} (${access.tar ? 'tar' : 'cat'})`,
      kill: () => void this.cancel(transferId),
    });
    let remote: RemoteCommand;
    try {
      remote = await this.open_({
        cri: this.options.nodes.client(request.nodeId),
        kind: 'exec',
        containerId: access.execIn,
        cmd,
        tty: false,
        stdin: true,
        stdout: true,
        stderr: true,
        dialer: this.options.nodes.dialer(request.nodeId),
        ...(signal !== undefined && { signal }),
      });
    } catch (error) {
      session?.end({ state: 'failed', reason: errorMessage(error) });
      throw error;
    }
    if (!remote.capabilities.closeStdin) {
      remote.dispose();
      session?.end({ state: 'failed', reason: remote.limitation ?? 'stdin can’t be ended' });
      throw new AppError({
        code: 'failed-precondition',
        message:
          'This stream can’t end stdin, so the container would never know the upload is whole.',
        ...(remote.limitation !== undefined && { detail: remote.limitation }),
        hint: 'Let Porthole pick the transport (SPDY can).',
      });
    }
    session?.update({
      state: 'active',
      transport: remote.negotiated.transport,
      protocol: remote.negotiated.protocol,
    });
    quiet(remote);
    remote.stdout?.resume();
    const tarPack = access.tar ? pack() : undefined;
    if (tarPack !== undefined) {
      tarPack.on('error', () => undefined);
      tarPack.pipe(remote.stdin!);
    }
    const upload: Upload = {
      kind: 'upload',
      record,
      nodeId: request.nodeId,
      access,
      directory,
      files,
      total,
      remote,
      session,
      stderr: new StderrTail(remote.stderr),
      pack: tarPack,
      index: -1,
      entry: undefined,
      due: 0,
      hashes: [],
      hash: undefined,
      writing: false,
    };
    record.running();
    this.add(upload);
    this.nextFile(upload);
    return record.snapshot();
  }

  async write(transferId: string, data: Uint8Array): Promise<void> {
    const upload = this.upload_(transferId);
    if (upload.writing) {
      throw new AppError({
        code: 'failed-precondition',
        message: 'One write at a time: wait for the last.',
      });
    }
    upload.writing = true;
    try {
      let offset = 0;
      while (offset < data.byteLength) {
        if (upload.record.ended) throw endedError(upload);
        if (upload.due === 0) {
          throw new AppError({
            code: 'invalid-argument',
            message: 'More bytes than the files of the upload have.',
          });
        }
        const piece = data.subarray(
          offset,
          offset + Math.min(upload.due, data.byteLength - offset),
        );
        offset += piece.byteLength;
        upload.due -= piece.byteLength;
        upload.hash?.update(piece);
        upload.record.count(piece.byteLength);
        upload.session?.countOut(piece.byteLength);
        this.scheduleTick();
        const sink: Sink = upload.entry ?? upload.remote.stdin!;
        const buffer = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
        if (!sink.write(buffer)) await drained(sink, upload);
        if (upload.due === 0) this.nextFile(upload);
      }
    } finally {
      upload.writing = false;
    }
  }

  async finish(transferId: string): Promise<FileTransfer> {
    const upload = this.upload_(transferId);
    if (upload.index < upload.files.length || upload.due > 0) {
      const error = new AppError({
        code: 'invalid-argument',
        message: `The upload is missing ${upload.total - upload.record.bytes} bytes: nothing was kept.`,
      });
      await this.abortUpload(upload, 'failed', error);
      throw error;
    }
    if (upload.pack !== undefined) upload.pack.finalize();
    else upload.remote.closeStdin();
    try {
      const result = await upload.remote.result;
      if (result.exitCode !== 0) {
        throw describeFailure(
          upload.stderr.text || result.message,
          upload.directory,
          'uploading to',
        );
      }
      await this.verifyUpload(upload);
      this.finishTransfer(upload, 'done');
    } catch (error) {
      this.finishTransfer(
        upload,
        upload.record.state === 'cancelled' ? 'cancelled' : 'failed',
        error,
      );
    }
    const snapshot = upload.record.snapshot();
    if (snapshot.state !== 'done') throw endedError(upload);
    return snapshot;
  }

  async cancel(transferId: string): Promise<void> {
    const transfer = this.transfers.get(transferId);
    if (transfer === undefined || transfer.record.ended) return;
    if (transfer.kind === 'upload') await this.abortUpload(transfer, 'cancelled', cancelled());
    else this.finishTransfer(transfer, 'cancelled', cancelled());
  }

  subscribe(sink: EventSink<readonly FileTransfer[]>): Disposable {
    sink.next(this.snapshots());
    return this.changed.event((list) => sink.next(list));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.tick);
    for (const transfer of this.transfers.values()) {
      if (!transfer.record.ended)
        this.finishTransfer(transfer, 'cancelled', cancelled('Porthole is closing.'));
    }
    this.changed.dispose();
  }

  // ---- inside -----------------------------------------------------------------------

  private access(nodeId: string, containerId: string, signal?: AbortSignal): Promise<Access> {
    return resolveAccess(
      this.options.nodes.client(nodeId),
      this.options.debug,
      nodeId,
      containerId,
      signal,
    );
  }

  private upload_(transferId: string): Upload {
    const transfer = this.transfers.get(transferId);
    if (transfer?.kind !== 'upload') {
      throw new AppError({ code: 'not-found', message: 'That upload is not running.' });
    }
    if (transfer.record.ended) throw endedError(transfer);
    return transfer;
  }

  private nextFile(upload: Upload): void {
    if (upload.hash !== undefined) upload.hashes.push(upload.hash.digest('hex'));
    upload.entry?.end();
    upload.entry = undefined;
    upload.hash = undefined;
    upload.index += 1;
    const file = upload.files[upload.index];
    if (file === undefined) return;
    upload.hash = createHash('sha256');
    upload.due = file.size;
    if (upload.pack !== undefined) {
      upload.entry = upload.pack.entry({
        name: file.path,
        size: file.size,
        mode: 0o644,
        mtime: new Date(),
        type: 'file',
      });
    }
    // An empty file has no bytes to wait for.
    if (file.size === 0) this.nextFile(upload);
  }

  /** Ends stdin short (tar then fails, and the script removes what it unpacked). */
  private async abortUpload(
    upload: Upload,
    state: 'failed' | 'cancelled',
    error: unknown,
  ): Promise<void> {
    if (!this.finishTransfer(upload, state, error, false)) return;
    upload.entry?.destroy();
    upload.pack?.destroy();
    try {
      upload.remote.stdin?.end();
    } catch {
      // Closed already.
    }
    // The script cleans up once tar sees the cut; the streams go after, or after a while.
    const settled = await Promise.race([
      upload.remote.result.then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
    ]);
    if (!settled) filesLog.warn(`An ended upload's exec did not exit: its streams are closed.`);
    upload.remote.dispose();
  }

  private async verify(download: Download, sha256: string): Promise<void> {
    if (!download.access.sha256) {
      download.record.checksum(sha256, 'unchecked');
      return;
    }
    const result = await this.options.nodes
      .client(download.nodeId)
      .execSync(
        download.access.execIn,
        [download.access.paths.sha256sum, download.target],
        checksumTimeoutSeconds,
      )
      .catch(() => undefined);
    const theirs =
      result?.exitCode === 0 ? new TextDecoder().decode(result.stdout).split(' ')[0] : undefined;
    if (theirs === undefined) {
      download.record.checksum(sha256, 'unchecked');
      return;
    }
    if (theirs !== sha256) {
      download.record.checksum(sha256, 'mismatch');
      throw new AppError({
        code: 'internal',
        message: `${download.record.snapshot().path} changed while it was downloaded (its sha256 is not what arrived): the download was discarded.`,
        detail: `container ${theirs}, received ${sha256}`,
      });
    }
    download.record.checksum(sha256, 'match');
  }

  private async verifyUpload(upload: Upload): Promise<void> {
    const single = upload.files.length === 1 ? upload.hashes[0] : undefined;
    if (!upload.access.sha256 || upload.files.length > 100) {
      if (single !== undefined) upload.record.checksum(single, 'unchecked');
      return;
    }
    const target = upload.access.root + upload.directory;
    const result = await this.options.nodes
      .client(upload.nodeId)
      .execSync(
        upload.access.execIn,
        [
          upload.access.paths.sha256sum,
          ...upload.files.map((file) => posix.join(target, file.path)),
        ],
        checksumTimeoutSeconds,
      )
      .catch(() => undefined);
    if (result?.exitCode !== 0) {
      if (single !== undefined) upload.record.checksum(single, 'unchecked');
      return;
    }
    const theirs = new TextDecoder()
      .decode(result.stdout)
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[0]);
    const match = upload.hashes.every((hash, index) => theirs[index] === hash);
    upload.record.checksum(single ?? '', match ? 'match' : 'mismatch');
    if (!match) {
      throw new AppError({
        code: 'internal',
        message: 'What arrived in the container is not what was sent (sha256 differs).',
      });
    }
  }

  private async estimate(
    nodeId: string,
    access: Access,
    target: string,
  ): Promise<number | undefined> {
    const result = await this.options.nodes
      .client(nodeId)
      .execSync(
        access.execIn,
        ['sh', '-c', `${defaultPath}du -sk "$1"`, 'sh', target],
        statTimeoutSeconds,
      )
      .catch(() => undefined);
    if (result === undefined) return undefined;
    const kib = Number(new TextDecoder().decode(result.stdout).split(/\s/)[0]);
    return Number.isFinite(kib) && kib > 0 ? kib * 1024 : undefined;
  }

  private add(transfer: Transfer): void {
    this.transfers.set(transfer.record.id, transfer);
    const ended = [...this.transfers.values()].filter((t) => t.record.ended);
    for (const old of ended.slice(0, Math.max(0, ended.length - filesLimits.keptTransfers))) {
      this.transfers.delete(old.record.id);
    }
    this.emit();
  }

  /** Ends a transfer once; returns whether this call ended it. */
  private finishTransfer(
    transfer: Transfer,
    state: 'done' | 'failed' | 'cancelled',
    error?: unknown,
    release = true,
  ): boolean {
    if (!transfer.record.end(state, error)) return false;
    const reason =
      state === 'done'
        ? `${transfer.record.snapshot().direction === 'download' ? 'Downloaded' : 'Uploaded'} ${transfer.record.bytes} bytes.`
        : errorMessage(error);
    transfer.session?.end({ state: state === 'done' ? 'ended' : 'failed', reason });
    if (transfer.kind === 'download') {
      clearTimeout(transfer.timer);
      if (state !== 'done') transfer.body?.destroy(isAppError(error) ? error : cancelled());
      if (release) transfer.remote?.dispose();
    } else if (release) {
      transfer.remote.dispose();
    }
    if (state === 'failed') filesLog.info(`A ${transfer.kind} failed: ${reason}`);
    this.emit();
    return true;
  }

  private snapshots(): FileTransfer[] {
    return [...this.transfers.values()].map((transfer) => transfer.record.snapshot());
  }

  private emit(): void {
    if (!this.disposed) this.changed.fire(this.snapshots());
  }

  /** Progress goes out a few times a second while bytes move, not once per chunk. */
  private scheduleTick(): void {
    this.tick ??= setTimeout(() => {
      this.tick = undefined;
      this.emit();
    }, progressTickMs);
  }
}

/** The first regular file's bytes out of a tar stream (the rest is drained). */
function fileOutOfTar(tar: Readable): Readable {
  const unpack = extract();
  tar.on('error', (error: Error) => unpack.destroy(error));
  tar.pipe(unpack);
  async function* file(): AsyncGenerator<Buffer> {
    let found = false;
    for await (const entry of unpack) {
      if (!found && entry.header.type === 'file') {
        found = true;
        for await (const chunk of entry) yield chunk as Buffer;
      } else {
        entry.resume();
      }
    }
    if (!found) throw new AppError({ code: 'internal', message: 'tar sent no file.' });
  }
  return Readable.from(file(), { objectMode: false, highWaterMark: 256 * 1024 });
}

/** What an upload writes to: a tar entry (a streamx Writable) or the exec's stdin. */
interface Sink {
  write(data: Buffer): boolean;
  end(data?: never): unknown;
  destroy(): void;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * The streams error when the session is closed under them (a cancel, the node gone); the
 * transfer learns why from the command's result, so those errors are not left unheard.
 */
function quiet(remote: RemoteCommand): void {
  for (const stream of [remote.stdin, remote.stdout, remote.stderr]) {
    stream?.on('error', () => undefined);
  }
}

function drained(sink: Sink, upload: Upload): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      sink.off('drain', done);
      sink.off('close', done);
      if (upload.record.ended) reject(endedError(upload));
      else resolve();
    };
    sink.on('drain', done);
    sink.on('close', done);
  });
}

function endedError(transfer: Transfer): AppError {
  const snapshot = transfer.record.snapshot();
  if (snapshot.error !== undefined) return new AppError(snapshot.error);
  return new AppError({
    code: 'failed-precondition',
    message: `The ${transfer.kind} has ended (${snapshot.state}).`,
  });
}

function tooLarge(what: string, max: number): AppError {
  return new AppError({
    code: 'resource-exhausted',
    message: `${what} is larger than ${formatBytes(max)}, the most one transfer may move: it was stopped.`,
    hint: 'Move it in parts (a subdirectory at a time), or with crictl on the node.',
  });
}

function formatBytes(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  return gib >= 1 ? `${gib} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

function errorMessage(error: unknown): string {
  return isAppError(error) ? error.message : error instanceof Error ? error.message : String(error);
}

/** A relative path of an upload, checked: no `..`, nothing absolute, no empty parts. */
function uploadPath(value: string, index: number): string {
  const parts = value.split('/');
  if (
    value === '' ||
    value.includes('\0') ||
    parts.some((part) => part === '' || part === '.' || part === '..')
  ) {
    throw new AppError({
      code: 'invalid-argument',
      message: `files[${index}].path must be a relative path without . or .. parts.`,
    });
  }
  return value;
}

function crictlDownload(
  access: Access,
  target: string,
  fileName: string,
  isDirectory: boolean,
): string {
  const parent = posix.dirname(target);
  const base = `./${posix.basename(target)}`;
  const id = access.execIn;
  const command = access.tar
    ? ['crictl', 'exec', '-i', id, 'tar', isDirectory ? '-cf' : '-chf', '-', '-C', parent, base]
    : ['crictl', 'exec', '-i', id, 'cat', target];
  const extractFile = access.tar && !isDirectory ? ` | tar -xOf - ${shellQuote(base)}` : '';
  return `${command.map(shellQuote).join(' ')}${extractFile} > ${shellQuote(fileName)}`;
}

function crictlUpload(access: Access, target: string, files: readonly UploadFile[]): string {
  const id = access.execIn;
  if (!access.tar) {
    return `crictl exec -i ${id} sh -c 'cat > "$1"' sh ${shellQuote(posix.join(target, files[0]!.path))} < ${shellQuote(files[0]!.path)}`;
  }
  return `tar -cf - ${files.map((file) => shellQuote(file.path)).join(' ')} | crictl exec -i ${id} tar -xf - -C ${shellQuote(target)}`;
}
