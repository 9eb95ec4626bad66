/**
 * One download: `tar -c` (or `cat` for a single file without tar) on an exec's stdout,
 * streamed to whoever fetches the transfer's address (the browser-mode host, Electron's
 * app protocol), with backpressure all the way: the SPDY stream is paused while the
 * page's download is behind, so nothing is held whole. A single file is taken out of its
 * tar on the way (tar-file.ts), so the user gets the file itself, hashed as it arrives and
 * checked against the container's sha256sum, run beside the stream, before the body ends.
 */
import { createHash, randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import { AppError, isAppError } from '../../../../shared/errors';
import type { FilesDownloadRequest } from '../../../../shared/model';
import { shellQuote } from '../../../../shared/shell';
import type { RemoteCommand } from '../../base/streaming';
import type { Access } from './access';
import { JoiningPassThrough } from './body';
import { containerPath, defaultPath, describeFailure } from './listing';
import { TransferRecord } from './progress';
import { TarFileStream } from './tar-file';
import {
  cancelled,
  checksumTimeoutSeconds,
  quiet,
  statTimeoutSeconds,
  OutputTail,
  tooLarge,
  Transfer,
  type EndState,
  type TransferContext,
} from './transfer';

/** What the host (or Electron's protocol) streams to the page for one download. */
export interface DownloadBody {
  readonly fileName: string;
  readonly contentType: string;
  /** Ends once the bytes are whole and checked; errors (and is cut) otherwise. */
  readonly body: Readable;
}

/** Where a download's bytes are fetched: same origin as the app. */
export const downloadPathPrefix = '/files/download/';

export class Download extends Transfer {
  readonly kind = 'download';
  private timer: NodeJS.Timeout | undefined;
  private remote: RemoteCommand | undefined;
  private body: Duplex | undefined;
  /** Stops the container's checksum of a download that ended without it. */
  private readonly checking = new AbortController();

  private constructor(
    context: TransferContext,
    record: TransferRecord,
    nodeId: string,
    access: Access,
    /** The full path as the exec sees it. */
    private readonly target: string,
    private readonly isDirectory: boolean,
    private readonly fileName: string,
  ) {
    super(context, record, nodeId, access);
  }

  /**
   * Checks the path and prepares the transfer; its exec starts once its address is
   * fetched (`open`), and it fails if that does not happen within `unfetchedMs`.
   */
  static async prepare(
    context: TransferContext,
    request: FilesDownloadRequest,
    accessOf: () => Promise<Access>,
    unfetchedMs: number,
    signal?: AbortSignal,
  ): Promise<Download> {
    const path = containerPath(request.path);
    if (path === '/') {
      throw new AppError({
        code: 'invalid-argument',
        message: 'The whole file system can’t be downloaded at once: choose a directory.',
      });
    }
    const client = context.nodes.client(request.nodeId);
    const statIn = (containerId: string, target: string) =>
      client.execSync(
        containerId,
        ['sh', '-c', `${defaultPath}stat -L -c "%f %s" "$1"`, 'sh', target],
        statTimeoutSeconds,
        signal !== undefined ? { signal } : {},
      );
    // The stat goes out beside the access probe, as if the container had a shell (most do),
    // rather than one round trip after it; through a debug container it is asked again.
    const statDirect = statIn(request.containerId, path);
    statDirect.catch(() => undefined);
    const access = await accessOf();
    const target = access.root + path;
    const stat =
      access.execIn === request.containerId && access.root === ''
        ? await statDirect
        : await statIn(access.execIn, target);
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
    if (!isDirectory && totalBytes !== undefined && totalBytes > context.maxBytes) {
      throw tooLarge(path, context.maxBytes);
    }
    if (isDirectory) totalBytes = await estimate(context, request.nodeId, access, target);
    const name = posix.basename(path);
    const fileName = isDirectory ? `${name}.tar` : name;
    const transferId = randomBytes(16).toString('hex');
    const record = new TransferRecord({
      transferId,
      direction: 'download',
      nodeId: request.nodeId,
      containerId: request.containerId,
      containerName: access.containerName,
      path,
      fileName,
      method: access.tar ? 'tar' : 'cat',
      via: access.via,
      url: `${downloadPathPrefix}${transferId}`,
      ...(totalBytes !== undefined && { totalBytes }),
      crictl: crictlDownload(access, target, fileName, isDirectory),
    });
    const download = new Download(
      context,
      record,
      request.nodeId,
      access,
      target,
      isDirectory,
      fileName,
    );
    download.timer = setTimeout(() => {
      download.end(
        'failed',
        new AppError({
          code: 'deadline-exceeded',
          message: `The download of ${path} was not fetched within a minute.`,
        }),
      );
    }, unfetchedMs);
    download.timer.unref();
    return download;
  }

  /**
   * Starts the exec and returns its bytes; undefined once fetched (each address works
   * once). Rejects in words when the exec can't start.
   */
  async open(): Promise<DownloadBody | undefined> {
    if (this.record.state !== 'waiting') return undefined;
    clearTimeout(this.timer);
    this.record.running();
    this.context.changed();
    const { access, target, isDirectory, nodeId, context } = this;
    const path = this.record.snapshot().path;
    const parent = posix.dirname(target);
    const base = `./${posix.basename(target)}`;
    const cmd = access.tar
      ? isDirectory
        ? [access.paths.tar, '-cf', '-', '-C', parent, base]
        : [access.paths.tar, '-chf', '-', '-C', parent, base]
      : [access.paths.cat, target];
    this.session = context.sessions?.register({
      kind: 'transfer',
      nodeId,
      nodeName: context.nodes.nodeName(nodeId),
      target: {
        description: `${access.containerName} ${path}`,
        containerId: this.record.snapshot().containerId,
        containerName: access.containerName,
      },
      detail: `download ${path} (${access.tar ? 'tar' : 'cat'})`,
      kill: () => this.end('cancelled', cancelled('Ended from the session monitor.')),
    });
    let remote: RemoteCommand;
    try {
      remote = await context.openRemoteCommand({
        cri: context.nodes.client(nodeId),
        kind: 'exec',
        containerId: access.execIn,
        cmd,
        tty: false,
        stdin: false,
        stdout: true,
        stderr: true,
        dialer: context.nodes.dialer(nodeId),
      });
    } catch (error) {
      this.end('failed', error);
      throw error;
    }
    this.remote = remote;
    quiet(remote);
    if (this.record.ended) {
      remote.dispose();
      throw cancelled();
    }
    this.session?.update({
      state: 'active',
      transport: remote.negotiated.transport,
      protocol: remote.negotiated.protocol,
    });
    const hash = isDirectory ? undefined : createHash('sha256');
    // The body the page reads; backpressure pauses the source once it is full.
    const counter = new JoiningPassThrough();
    this.body = counter;
    const stderr = new OutputTail(remote.stderr);
    const stdout = remote.stdout!;
    // The bytes of the one file, out of its tar (a file download comes as the file itself).
    const source = isDirectory || !access.tar ? stdout : fileOutOfTar(stdout);
    // The container's sha256sum reads the file beside the stream, not after it (which cost
    // a second read on the clock); what arrived is compared with it once whole, and a file
    // changed meanwhile still shows as a mismatch.
    const theirs = hash !== undefined && access.sha256 ? this.containerSha256() : undefined;
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
      this.record.count(chunk.byteLength);
      this.session?.countIn(chunk.byteLength);
      context.progressed();
      if (this.record.bytes > context.maxBytes) {
        counter.destroy(tooLarge(path, context.maxBytes));
        return;
      }
      hash?.update(chunk);
    });
    counter.once('close', () => {
      if (!this.record.ended) {
        this.end('cancelled', cancelled('The download was stopped where it was being saved.'));
      }
    });
    void (async () => {
      try {
        const result = await remote.result;
        if (result.exitCode !== 0) {
          throw describeFailure(stderr.text || result.message, path, 'downloading');
        }
        await sourceDone;
        if (!sourceEnded)
          throw new AppError({ code: 'internal', message: 'The stream ended early.' });
        // The bytes phase is over: the page has every byte, under the temporary name its
        // browser gives an unfinished download; the body ends (and the file is kept) only
        // once the sums agree.
        if (theirs !== undefined) this.verifying();
        if (hash !== undefined) this.verify(hash.digest('hex'), await theirs);
        if (this.record.ended) return;
        this.end('done');
        counter.end();
      } catch (error) {
        this.end('failed', error);
      }
    })();
    return {
      fileName: this.fileName,
      contentType: isDirectory ? 'application/x-tar' : 'application/octet-stream',
      body: counter,
    };
  }

  cancel(error: AppError): Promise<void> {
    this.end('cancelled', error);
    return Promise.resolve();
  }

  protected released(state: EndState, error: unknown, release: boolean): void {
    clearTimeout(this.timer);
    this.checking.abort();
    if (state !== 'done') this.body?.destroy(isAppError(error) ? error : cancelled());
    if (release) this.remote?.dispose();
  }

  /**
   * The file's sha256 as the container computes it; undefined where it can't. It runs at
   * the lowest priority: busybox's sha256sum takes a core for 1.5–1.9 s per 100 MiB, and
   * beside the stream it took that core from the tar and the stream itself, so the bytes
   * came later; niced, it gets what they leave and catches up once they are done.
   */
  private async containerSha256(): Promise<string | undefined> {
    const result = await this.context.nodes
      .client(this.nodeId)
      .execSync(
        this.access.execIn,
        ['sh', '-c', lowPriority, this.access.paths.sha256sum, this.target],
        checksumTimeoutSeconds,
        { signal: this.checking.signal },
      )
      .catch(() => undefined);
    return result?.exitCode === 0
      ? new TextDecoder().decode(result.stdout).split(' ')[0]
      : undefined;
  }

  private verify(sha256: string, theirs: string | undefined): void {
    if (theirs === undefined) {
      this.record.checksum(sha256, 'unchecked');
      return;
    }
    if (theirs !== sha256) {
      this.record.checksum(sha256, 'mismatch');
      throw new AppError({
        code: 'internal',
        message: `${this.record.snapshot().path} changed while it was downloaded (its sha256 is not what arrived): the download was discarded.`,
        detail: `container ${theirs}, received ${sha256}`,
      });
    }
    this.record.checksum(sha256, 'match');
  }
}

/** Runs `$0 $1` niced where the container has nice (busybox does), else as it is. */
const lowPriority = `${defaultPath}command -v nice > /dev/null && exec nice -n 19 "$0" "$1"\nexec "$0" "$1"`;

/** A directory's size from `du`, for the progress bar; undefined where du can't say. */
async function estimate(
  context: TransferContext,
  nodeId: string,
  access: Access,
  target: string,
): Promise<number | undefined> {
  const result = await context.nodes
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

/** The file's bytes out of the tar on stdout; an error of stdout ends them too. */
function fileOutOfTar(tar: Readable): Readable {
  const file = new TarFileStream();
  tar.on('error', (error: Error) => file.destroy(error));
  return tar.pipe(file);
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
