/**
 * One open log: its store, the reading (once, or following the file as it grows and
 * rotates), its subscribers, and — while following — its session in the monitor.
 */
import { AppError, toAppErrorData } from '../../../../shared/errors';
import { MutableDisposable, toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { LogInfo, LogOpenRequest, LogUpdate } from '../../../../shared/model';
import type { EventSink } from '../../../../shared/contract';
import type { CriClient } from '../../base/cri';
import type { SessionHandle, SessionRegistry } from '../sessions';
import type { NodeFiles, ReadableFile } from '../../base/files';
import type { LogLocation } from './locate';
import { LogSearcher } from './search';
import { LogStore, type LogStoreOptions } from './store';
import { tailStart } from './tail';

/** Reads of a file opened without following. */
const readSize = 4 * 1024 * 1024;

export interface OpenLogTimings {
  /** Growth is reported at most this often. Default 100 ms (10 a second). */
  readonly updateIntervalMs: number;
  /** How often a followed file's path is checked for being missing. Default 2 s. */
  readonly missingCheckMs: number;
  /** How often ReopenContainerLog may be asked for. Default 10 s. */
  readonly reopenIntervalMs: number;
  /** SFTP and local polls once caught up. Default 500 ms. */
  readonly pollIntervalMs: number;
}

export const defaultOpenLogTimings: OpenLogTimings = {
  updateIntervalMs: 100,
  missingCheckMs: 2000,
  reopenIntervalMs: 10_000,
  pollIntervalMs: 500,
};

export interface OpenLogInit {
  readonly logId: string;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly request: LogOpenRequest;
  readonly location: LogLocation;
  readonly files: NodeFiles;
  /** The node's CRI client now (for ReopenContainerLog); throws once disconnected. */
  readonly client: () => Pick<CriClient, 'reopenContainerLog'>;
  readonly sessions: SessionRegistry;
  readonly store?: LogStoreOptions;
  readonly timings?: Partial<OpenLogTimings>;
}

export class OpenLog implements Disposable {
  readonly store: LogStore;
  readonly searcher: LogSearcher;
  private readonly sinks = new Set<EventSink<LogUpdate>>();
  private following: boolean;
  private readonly follower = new MutableDisposable<Disposable>();
  private session: SessionHandle | undefined;
  private updateTimer: NodeJS.Timeout | undefined;
  private lastUpdateAt = 0;
  private missingTimer: NodeJS.Timeout | undefined;
  private missingSince: number | undefined;
  private lastReopenAt = 0;
  private reopenGaveUp = false;
  private error: AppError | undefined;
  /** Ends a `start()` still reading when following stops first (closed while opening). */
  private settleStart: (() => void) | undefined;
  private disposed = false;
  private readonly timings: OpenLogTimings;
  /** Called once this log closes itself (idle) or is disposed. */
  onDidDispose: (() => void) | undefined;

  constructor(private readonly init: OpenLogInit) {
    this.timings = { ...defaultOpenLogTimings, ...init.timings };
    this.store = new LogStore({
      ...init.store,
      ...(init.request.since !== undefined && { since: init.request.since }),
    });
    this.searcher = new LogSearcher(this.store);
    this.following = init.request.follow;
  }

  get info(): LogInfo {
    const location = this.init.location;
    return {
      logId: this.init.logId,
      ...(this.session !== undefined && { sessionId: this.session.id }),
      nodeId: this.init.nodeId,
      containerId: location.containerId,
      containerName: location.containerName,
      path: location.path,
      following: this.following,
      lineCount: this.store.lineCount,
    };
  }

  /** Where the log is, and whose. */
  get location(): LogLocation {
    return this.init.location;
  }

  /** How the file is read: SFTP polls, so its growth comes later than a local file's. */
  get transport(): NodeFiles['transport'] {
    return this.init.files.transport;
  }

  /** Why following stopped, if it failed. */
  get failure(): AppError | undefined {
    return this.error;
  }

  /** Reads what is there (following from there on if asked); resolves once read. */
  async start(): Promise<void> {
    const { request } = this.init;
    const file = await this.openFile();
    let size: number;
    let start: number;
    try {
      size = await file.size();
      start = request.tailLines === undefined ? 0 : await tailStart(file, size, request.tailLines);
      if (!request.follow) {
        for (let offset = start; offset < size && !this.disposed;) {
          const chunk = await file.read(offset, Math.min(readSize, size - offset));
          if (chunk.length === 0) break;
          this.store.append(chunk, true);
          offset += chunk.length;
        }
        this.store.finish();
        return;
      }
    } finally {
      file.dispose();
    }
    await this.follow(start, size);
  }

  /**
   * Opens the log file. A running container's log that is missing (moved away, deleted)
   * is recreated by asking the runtime to reopen it, when following: what it writes next
   * is then there to follow.
   */
  private async openFile(): Promise<ReadableFile> {
    const { files, location, request } = this.init;
    try {
      return await files.open(location.path);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'not-found') throw error;
      if (request.follow && location.running) {
        const reopened = await this.init
          .client()
          .reopenContainerLog(location.containerId)
          .then(
            () => true,
            () => false,
          );
        if (reopened) return files.open(location.path);
      }
      throw new AppError({
        ...toAppErrorData(error),
        hint: location.running
          ? 'The file was moved or deleted. Turn on "Follow": Porthole then asks the runtime to recreate it, and shows what the container writes from now on.'
          : 'The file was moved or deleted after the container wrote it (a log rotation, a cleanup).',
      });
    }
  }

  subscribe(sink: EventSink<LogUpdate>): Disposable {
    this.sinks.add(sink);
    sink.next(this.snapshot());
    return toDisposable(() => this.sinks.delete(sink));
  }

  get subscriberCount(): number {
    return this.sinks.size;
  }

  /** Stops following (the monitor's kill, a lost node); what was read stays readable. */
  stopFollowing(reason: { readonly error?: AppError; readonly message?: string }): void {
    if (!this.following) return;
    this.following = false;
    this.settleStart?.();
    this.follower.clear();
    clearInterval(this.missingTimer);
    this.missingTimer = undefined;
    this.store.finish();
    if (reason.error !== undefined) {
      this.error = reason.error;
      this.session?.end({
        state: 'failed',
        reason: reason.error.message,
        error: toAppErrorData(reason.error),
      });
    } else {
      this.session?.end({ state: 'ended', reason: reason.message ?? 'Stopped following.' });
    }
    this.emitNow();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopFollowing({ message: 'The log was closed.' });
    clearTimeout(this.updateTimer);
    this.searcher.dispose();
    this.sinks.clear();
    this.onDidDispose?.();
  }

  // ---- following ------------------------------------------------------------------

  private follow(start: number, initialSize: number): Promise<void> {
    const { files, location, nodeId, nodeName } = this.init;
    this.session = this.init.sessions.register({
      kind: 'logs',
      nodeId,
      nodeName,
      target: {
        description:
          location.podName === undefined
            ? location.containerName
            : `${location.namespace ?? ''}/${location.podName} › ${location.containerName}`,
        podSandboxId: location.podSandboxId,
        ...(location.podName !== undefined && { podName: location.podName }),
        ...(location.namespace !== undefined && { namespace: location.namespace }),
        containerId: location.containerId,
        containerName: location.containerName,
      },
      detail: location.path,
      kill: () => this.stopFollowing({ message: 'Stopped from the session monitor.' }),
    });
    this.session.update({
      state: 'active',
      transport: files.transport,
      stateReason: `Following ${location.path}`,
    });
    return new Promise<void>((resolve, reject) => {
      let caughtUp = initialSize <= start;
      const settle = (): void => {
        if (caughtUp) return;
        caughtUp = true;
        resolve();
      };
      if (caughtUp) resolve();
      this.settleStart = settle;
      this.follower.value = files.follow(
        location.path,
        {
          fromOffset: start,
          pollIntervalMs: this.timings.pollIntervalMs,
          chunkSize: files.transport === 'sftp' ? 256 * 1024 : 4 * 1024 * 1024,
          onRotate: (how) => {
            this.store.endOfFile();
            settle();
            this.emitNow({ rotated: how });
          },
          onError: (error) => {
            if (!caughtUp) {
              caughtUp = true;
              this.following = false;
              this.session?.end({
                state: 'failed',
                reason: error.message,
                error: toAppErrorData(error),
              });
              reject(error);
              return;
            }
            this.stopFollowing({ error });
          },
        },
        (chunk, offset) => {
          this.session?.countIn(chunk.length);
          // Both followers read into a new buffer each time: it can be kept as it is.
          this.store.append(chunk, true);
          if (!caughtUp && offset + chunk.length >= initialSize) settle();
          if (caughtUp) this.scheduleUpdate();
        },
      );
      if (location.running) this.watchForMissingFile();
    });
  }

  /**
   * A followed file that vanished (rotated by hand, deleted) without the runtime
   * reopening it would go quiet for good: after a grace period for whoever rotated it,
   * ask the runtime to reopen (recreate) it.
   */
  private watchForMissingFile(): void {
    const { files, location } = this.init;
    this.missingTimer = setInterval(() => {
      if (this.reopenGaveUp) return;
      files.exists(location.path).then(
        (exists) => {
          if (!this.following) return;
          if (exists) {
            this.missingSince = undefined;
            return;
          }
          const now = Date.now();
          this.missingSince ??= now;
          if (now - this.missingSince < this.timings.missingCheckMs) return;
          if (now - this.lastReopenAt < this.timings.reopenIntervalMs) return;
          this.lastReopenAt = now;
          this.reopen();
        },
        () => undefined,
      );
    }, this.timings.missingCheckMs);
    this.missingTimer.unref();
  }

  private reopen(): void {
    let client: Pick<CriClient, 'reopenContainerLog'>;
    try {
      client = this.init.client();
    } catch {
      // The node is no longer connected: there is no runtime to ask, and the follow ends
      // with the node's own error.
      return;
    }
    client.reopenContainerLog(this.init.location.containerId).catch((error: unknown) => {
      // The container stopped or is gone: nobody writes to the log any more.
      const code = error instanceof AppError ? error.code : 'unknown';
      if (code === 'failed-precondition' || code === 'not-found') this.reopenGaveUp = true;
    });
  }

  // ---- updates --------------------------------------------------------------------

  private snapshot(extra: Partial<LogUpdate> = {}): LogUpdate {
    const dropped = this.store.dropped;
    return {
      lineCount: this.store.lineCount,
      following: this.following,
      ...(dropped > 0 && { dropped }),
      ...(this.error !== undefined && { error: toAppErrorData(this.error) }),
      ...extra,
    };
  }

  /** Growth: at most one update per interval, the last one always sent. */
  private scheduleUpdate(): void {
    if (this.updateTimer !== undefined || this.disposed) return;
    const wait = Math.max(0, this.lastUpdateAt + this.timings.updateIntervalMs - Date.now());
    this.updateTimer = setTimeout(() => {
      this.updateTimer = undefined;
      this.emitNow();
    }, wait);
  }

  private emitNow(extra: Partial<LogUpdate> = {}): void {
    if (this.disposed) return;
    clearTimeout(this.updateTimer);
    this.updateTimer = undefined;
    this.lastUpdateAt = Date.now();
    const update = this.snapshot(extra);
    for (const sink of [...this.sinks]) sink.next(update);
  }
}
