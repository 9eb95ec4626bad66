/**
 * One upload: a tar stream built from the page's writes into `tar -x` on an exec's stdin
 * (or `cat` for one file without tar), unpacked into a hidden directory beside the target
 * and moved into place only once whole and checked (upload-script.ts), so a failure,
 * cancel or mismatch leaves nothing half-written. Each file is hashed as it is written;
 * the sums go last in the tar, and the container's sha256sum checks them once unpacked
 * (the transfer's `verifying` phase). Without tar, the one file is checked beside its place
 * and moved in after.
 */
import { createHash, randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { Transform } from 'node:stream';
import { pack, type Pack } from 'tar-stream';
import { AppError } from '../../../../shared/errors';
import { filesLimits, type FilesUploadRequest } from '../../../../shared/model';
import { logger } from '../../base/log';
import type { RemoteCommand } from '../../base/streaming';
import type { Access } from './access';
import { crictlUpload, type UploadFile } from './upload-files';
import { describeFailure } from './listing';
import { TransferRecord } from './progress';
import {
  filesPrefix,
  listenToScript,
  mismatchExitCode,
  catRemoveCommand,
  keepCatUpload,
  sumsEntry,
  sumsText,
  uploadCommand,
  type ScriptReport,
} from './upload-script';
import {
  cancelled,
  checksumTimeoutSeconds,
  errorMessage,
  quiet,
  OutputTail,
  Transfer,
  type EndState,
  type TransferContext,
} from './transfer';

const filesLog = logger('files');

/** What one write may leave queued in the core before it waits. */
const queuedLimit = 4 * 1024 * 1024;

/** What an upload writes to: a tar entry (a streamx Writable) or the exec's stdin. */
interface Sink {
  write(data: Buffer): boolean;
  end(data?: never): unknown;
  destroy(): void;
}

export class Upload extends Transfer {
  readonly kind = 'upload';
  private readonly stderr: OutputTail;
  /** Between the tar stream and stdin: counts what went on, and wakes a waiting write. */
  private readonly passing = new Transform({
    transform: (chunk: Buffer, _encoding, done) => {
      this.passed += chunk.byteLength;
      this.wake();
      done(null, chunk);
    },
  });
  /** The file being written, its entry and the bytes still due. */
  private index = -1;
  private entry: Sink | undefined;
  private due = 0;
  private readonly hashes: string[] = [];
  private hash: ReturnType<typeof createHash> | undefined;
  /** Writes on their way, each chained after the last so they go in call order. */
  private writes: Promise<void> = Promise.resolve();
  private inFlight = 0;
  /** Bytes written, and passed on towards stdin (tar mode): what a write leaves queued. */
  private written = 0;
  private passed = 0;
  private exited = false;
  /** The script said it gave up: nothing more is sent. */
  private refused = false;
  /** The script said it has somewhere to put the bytes: none is sent before. */
  private ready = false;
  private waiter: (() => void) | undefined;

  private constructor(
    context: TransferContext,
    record: TransferRecord,
    nodeId: string,
    access: Access,
    private readonly directory: string,
    private readonly files: readonly UploadFile[],
    private readonly remote: RemoteCommand,
    /** tar mode: the pack stream into stdin. */
    private readonly pack: Pack | undefined,
    /** Whether the container's sha256sum checks what arrived. */
    private readonly checked: boolean,
  ) {
    super(context, record, nodeId, access);
    this.stderr = new OutputTail(remote.stderr);
    if (remote.stdout !== undefined) listenToScript(remote.stdout, (report) => this.heard(report));
    remote.stdin?.on('drain', () => this.wake());
    const exited = (): void => {
      this.exited = true;
      this.wake();
    };
    remote.result.then(exited, exited);
  }

  /** Starts the exec that unpacks; the bytes follow with `write`. */
  static async start(
    context: TransferContext,
    request: FilesUploadRequest,
    directory: string,
    files: readonly UploadFile[],
    access: Access,
    signal?: AbortSignal,
  ): Promise<Upload> {
    const total = files.reduce((sum, file) => sum + file.size, 0);
    const nested = files.length !== 1 || files[0]!.path.includes('/');
    if (!access.tar && nested) {
      throw new AppError({
        code: 'failed-precondition',
        message: `${access.containerName} has no tar: only one file at a time can be uploaded to it.`,
        hint: 'Start a debug container (Debug…, busybox has tar) and upload through it.',
      });
    }
    const target = access.root + directory;
    const checked = access.sha256;
    const cmd = uploadCommand(access, target, files, checked);
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
    // The monitor can end it before it is built (while the exec opens): nothing to cancel yet.
    const built: { upload?: Upload } = {};
    const session = context.sessions?.register({
      kind: 'transfer',
      nodeId: request.nodeId,
      nodeName: context.nodes.nodeName(request.nodeId),
      target: {
        description: `${access.containerName} ${directory}`,
        containerId: request.containerId,
        containerName: access.containerName,
      },
      detail: `upload ${fileName} to ${directory} (${access.tar ? 'tar' : 'cat'})`,
      kill: () => void built.upload?.cancel(cancelled()),
    });
    let remote: RemoteCommand;
    try {
      remote = await context.openRemoteCommand({
        cri: context.nodes.client(request.nodeId),
        kind: 'exec',
        containerId: access.execIn,
        cmd,
        tty: false,
        stdin: true,
        stdout: true,
        stderr: true,
        dialer: context.nodes.dialer(request.nodeId),
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
    const tarPack = access.tar ? pack() : undefined;
    const upload = new Upload(
      context,
      record,
      request.nodeId,
      access,
      directory,
      files,
      remote,
      tarPack,
      checked,
    );
    built.upload = upload;
    if (tarPack !== undefined) {
      tarPack.on('error', () => undefined);
      tarPack.pipe(upload.passing).pipe(remote.stdin!);
    }
    upload.session = session;
    record.running();
    upload.nextFile();
    return upload;
  }

  /**
   * The next bytes, in the order of the files. Up to `filesLimits.writesInFlight` may be on
   * their way at once: each waits for the one before it, so they go in call order.
   */
  write(data: Uint8Array): Promise<void> {
    if (this.record.ended) return Promise.reject(this.endedError());
    if (this.inFlight >= filesLimits.writesInFlight) {
      return Promise.reject(
        new AppError({
          code: 'failed-precondition',
          message: `At most ${filesLimits.writesInFlight} writes of an upload at once: wait for one.`,
        }),
      );
    }
    this.inFlight += 1;
    const written = this.writes.then(() => this.writeNow(data));
    this.writes = written.catch(() => undefined);
    return written.finally(() => (this.inFlight -= 1));
  }

  /** Every byte was written: waits for the container to unpack and check them. */
  async finish(): Promise<void> {
    await this.writes;
    if (this.record.ended) throw this.endedError();
    if (this.index < this.files.length || this.due > 0) {
      const total = this.record.snapshot().totalBytes ?? 0;
      const error = new AppError({
        code: 'invalid-argument',
        message: `The upload is missing ${total - this.record.bytes} bytes: nothing was kept.`,
      });
      await this.abort('failed', error);
      throw error;
    }
    if (this.pack !== undefined) {
      // The sums go last, for the script to check the files with before it moves them.
      if (this.checked) {
        const paths = this.files.map((file) => file.path);
        this.pack.entry({ name: sumsEntry }, sumsText(paths, this.hashes));
      }
      this.pack.finalize();
    } else this.remote.closeStdin();
    try {
      await this.outcome();
      if (this.pack === undefined) await this.keepChecked();
      this.end('done');
    } catch (error) {
      await this.removePart();
      this.end(this.record.state === 'cancelled' ? 'cancelled' : 'failed', error);
    }
    if (this.record.state !== 'done') throw this.endedError();
  }

  cancel(error: AppError): Promise<void> {
    return this.abort('cancelled', error);
  }

  private async writeNow(data: Uint8Array): Promise<void> {
    while (!this.ready) {
      await this.stillTaken();
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    let offset = 0;
    while (offset < data.byteLength) {
      await this.stillTaken();
      if (this.due === 0) {
        throw new AppError({
          code: 'invalid-argument',
          message: 'More bytes than the files of the upload have.',
        });
      }
      const piece = data.subarray(offset, offset + Math.min(this.due, data.byteLength - offset));
      offset += piece.byteLength;
      this.due -= piece.byteLength;
      this.hash?.update(piece);
      this.record.count(piece.byteLength);
      this.session?.countOut(piece.byteLength);
      this.context.progressed();
      const sink: Sink = this.entry ?? this.remote.stdin!;
      const buffer = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      sink.write(buffer);
      this.written += buffer.byteLength;
      if (this.due === 0) this.nextFile();
    }
    // Resolved with a few MiB still queued: the page's next write is on its way while
    // these flush, and what the core holds stays bounded.
    while (this.queued() > queuedLimit) {
      await new Promise<void>((resolve) => (this.waiter = resolve));
      await this.stillTaken();
    }
  }

  /** Throws how the upload ended if it did, or ends it if the container stopped taking it. */
  private async stillTaken(): Promise<void> {
    if (this.record.ended) throw this.endedError();
    if (this.exited || this.refused) {
      await this.endedEarly();
      throw this.endedError();
    }
  }

  /** What the script says on stdout (upload-script.ts). */
  private heard(report: ScriptReport): void {
    const single = this.files.length === 1 ? this.hashes[0] : undefined;
    switch (report.said) {
      case 'failed':
        // It gave up (no directory to unpack in, tar failed) and reads stdin away: stop
        // sending, so the upload ends now with its words rather than after all its bytes.
        this.refused = true;
        this.stopSending();
        this.wake();
        void this.endedEarly();
        return;
      case 'ready':
        this.ready = true;
        this.wake();
        return;
      case 'unpacked':
        if (this.checked) this.verifying();
        return;
      case 'checked':
        this.record.checksum(single ?? '', 'match');
        return;
      case 'unchecked':
        if (single !== undefined) this.record.checksum(single, 'unchecked');
        return;
    }
  }

  /** The exec's exit, in words when it failed. */
  private async outcome(): Promise<void> {
    const result = await this.remote.result;
    if (result.exitCode === mismatchExitCode && this.pack !== undefined) {
      throw this.mismatch(this.stderr.text.trim());
    }
    if (result.exitCode !== 0) {
      throw describeFailure(this.stderr.text || result.message, this.directory, 'uploading to');
    }
  }

  /**
   * The exec ended, or gave up, before every byte was written (killed, the container
   * stopped, no directory to unpack in): the upload ends with why, rather than queue the
   * rest of it where nothing reads.
   */
  private async endedEarly(): Promise<void> {
    let error: unknown = new AppError({
      code: 'internal',
      message: 'The container stopped taking the upload before its end: nothing was kept.',
    });
    try {
      await this.outcome();
    } catch (reason) {
      error = reason;
    }
    this.end('failed', error);
  }

  protected released(_state: EndState, _error: unknown, release: boolean): void {
    this.wake();
    if (release) this.remote.dispose();
  }

  private nextFile(): void {
    if (this.hash !== undefined) this.hashes.push(this.hash.digest('hex'));
    this.entry?.end();
    this.entry = undefined;
    this.hash = undefined;
    this.index += 1;
    const file = this.files[this.index];
    if (file === undefined) return;
    this.hash = createHash('sha256');
    this.due = file.size;
    if (this.pack !== undefined) {
      this.entry = this.pack.entry({
        name: filesPrefix + file.path,
        size: file.size,
        mode: 0o644,
        mtime: new Date(),
        type: 'file',
      });
    }
    // An empty file has no bytes to wait for.
    if (file.size === 0) this.nextFile();
  }

  /** Bytes written but not yet on their way to the container. */
  private queued(): number {
    return this.pack !== undefined
      ? this.written - this.passed
      : (this.remote.stdin?.writableLength ?? 0);
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Stops the bytes and ends stdin (tar then fails, and the script removes what it unpacked). */
  private stopSending(): void {
    this.entry?.destroy();
    this.pack?.destroy();
    this.passing.destroy();
    try {
      this.remote.stdin?.end();
    } catch {
      // Closed already.
    }
  }

  /** Ends stdin short (tar then fails, and the script removes what it unpacked). */
  private async abort(state: 'failed' | 'cancelled', error: unknown): Promise<void> {
    if (!this.end(state, error, false)) return;
    this.stopSending();
    // The script cleans up once tar sees the cut; the streams go after, or after a while.
    const settled = await Promise.race([
      this.remote.result.then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
    ]);
    if (!settled) filesLog.warn(`An ended upload's exec did not exit: its streams are closed.`);
    this.remote.dispose();
    // A cat upload cut after its last byte has left its part file for a check that won't
    // come (the script can't tell a cut at the end from the end).
    await this.removePart();
  }

  /** The container's sha256sum disagreed with what was sent (`detail`: which file). */
  private mismatch(detail: string): AppError {
    this.record.checksum(this.files.length === 1 ? (this.hashes[0] ?? '') : '', 'mismatch');
    return new AppError({
      code: 'internal',
      message:
        'What arrived in the container is not what was sent (its sha256 differs): nothing was kept.',
      ...(detail !== '' && { detail }),
    });
  }

  /** Runs `cmd` where the upload goes, as its checks do: the transfer is not a stream. */
  private checkIn(cmd: string[]) {
    const client = this.context.nodes.client(this.nodeId);
    return client.execSync(this.access.execIn, cmd, checksumTimeoutSeconds);
  }

  /**
   * A checked cat upload not kept may have left its part file (Porthole's name): gone. The
   * script removes it itself until its last byte, so this is for after.
   */
  private async removePart(): Promise<void> {
    if (this.pack !== undefined || !this.checked) return;
    await this.checkIn(catRemoveCommand(this.catFile())).catch(() => undefined);
  }

  /** Where a cat upload's one file goes. */
  private catFile(): string {
    return posix.join(this.access.root + this.directory, this.files[0]!.path);
  }

  /**
   * Without tar, the one file's sum is known only after stdin's end: the script leaves the
   * file beside its place, to be checked there and moved in (upload-script.ts). Whatever
   * keeps it out (a mismatch, a cancel meanwhile) leaves the part for removePart.
   */
  private async keepChecked(): Promise<void> {
    const sent = this.hashes[0] ?? '';
    const kept = this.checked
      ? await keepCatUpload({
          access: this.access,
          path: this.catFile(),
          directory: this.directory,
          sent,
          run: (cmd) => this.checkIn(cmd),
          ended: () => this.record.ended,
        })
      : 'unchecked';
    if (kept === 'ended') throw this.endedError();
    if (kept === 'mismatch') throw this.mismatch('');
    this.record.checksum(sent, kept);
  }
}
