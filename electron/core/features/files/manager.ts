/**
 * A container's files over the CRI alone. Listings run `sh` + `stat` with ExecSync
 * (listing.ts); downloads (download.ts) stream `tar -c` or `cat` from an exec's stdout;
 * uploads (upload.ts) feed `tar -x` or `cat` on an exec's stdin. This keeps the list of
 * transfers and tells subscribers. Each transfer is a session of the monitor (kind
 * `transfer`: its bytes and rate; the exec under it is the transfer's own, not a terminal).
 */
import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
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
import { openRemoteCommand } from '../../base/streaming';
import type { NodeManager } from '../nodes';
import type { SessionRegistry } from '../sessions';
import { resolveAccess, type Access, type DebugRoots } from './access';
import { Download, type DownloadBody } from './download';
import { containerPath, describeFailure, listScript, parseListing } from './listing';
import { cancelled, type TransferContext } from './transfer';
import { Upload } from './upload';
import { uploadFiles } from './upload-files';

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

const listTimeoutSeconds = 30;
/** Transfer updates go out at most this often while bytes move. */
const progressTickMs = 250;

export class FilesManager implements Disposable {
  private readonly transfers = new Map<string, Download | Upload>();
  private readonly changed = new Emitter<readonly FileTransfer[]>();
  private readonly context: TransferContext;
  private readonly unfetchedMs: number;
  private tick: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly options: FilesManagerOptions) {
    this.unfetchedMs = options.unfetchedMs ?? 60_000;
    this.context = {
      nodes: options.nodes,
      sessions: options.sessions,
      openRemoteCommand: options.openRemoteCommand ?? openRemoteCommand,
      maxBytes: options.maxTransferBytes ?? filesLimits.maxTransferBytes,
      changed: () => this.emit(),
      progressed: () => this.scheduleTick(),
    };
  }

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

  async download(request: FilesDownloadRequest, signal?: AbortSignal): Promise<FileTransfer> {
    const download = await Download.prepare(
      this.context,
      request,
      () => this.access(request.nodeId, request.containerId, signal),
      this.unfetchedMs,
      signal,
    );
    this.add(download);
    return download.record.snapshot();
  }

  /**
   * Starts a prepared download's exec and returns its bytes; undefined for an unknown or
   * already fetched transfer (each address works once). Rejects in words when the exec
   * can't start.
   */
  async openDownload(transferId: string): Promise<DownloadBody | undefined> {
    const download = this.transfers.get(transferId);
    if (download?.kind !== 'download') return undefined;
    return await download.open();
  }

  async upload(request: FilesUploadRequest, signal?: AbortSignal): Promise<FileTransfer> {
    const directory = containerPath(request.directory, 'directory');
    const files = uploadFiles(request, this.context.maxBytes);
    const access = await this.access(request.nodeId, request.containerId, signal);
    const upload = await Upload.start(this.context, request, directory, files, access, signal);
    this.add(upload);
    return upload.record.snapshot();
  }

  async write(transferId: string, data: Uint8Array): Promise<void> {
    await this.upload_(transferId).write(data);
  }

  async finish(transferId: string): Promise<FileTransfer> {
    const upload = this.upload_(transferId);
    await upload.finish();
    return upload.record.snapshot();
  }

  async cancel(transferId: string): Promise<void> {
    const transfer = this.transfers.get(transferId);
    if (transfer === undefined || transfer.record.ended) return;
    await transfer.cancel(cancelled());
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
      transfer.end('cancelled', cancelled('Porthole is closing.'));
    }
    this.changed.dispose();
  }

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
    return transfer;
  }

  private add(transfer: Download | Upload): void {
    this.transfers.set(transfer.record.id, transfer);
    const ended = [...this.transfers.values()].filter((t) => t.record.ended);
    for (const old of ended.slice(0, Math.max(0, ended.length - filesLimits.keptTransfers))) {
      this.transfers.delete(old.record.id);
    }
    this.emit();
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
