/**
 * The `logs` service and event: a container's log is opened once in the core (found,
 * read into an indexed store, followed if asked) and read in windows, so a million lines
 * never cross the wire at once.
 *
 * A merged log (several containers' logs ordered by time, see MergedLog) is read,
 * searched, watched and closed through the same methods, by its id.
 *
 * Bounds: each log holds at most `maxBytes` (the store's cap: the oldest lines are
 * dropped past it), at most `maxOpenLogs` are open at once (a merged one counts once: its sources
 * share one log's `maxBytes`), a window is at most
 * `maxWindowLines` lines, and a log nobody subscribes to for `idleCloseMs` (a window that
 * went away without closing it) is closed.
 */
import { randomUUID } from 'node:crypto';
import type { CallContext, EventSource, ServiceHandler } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type {
  LogInfo,
  LogLine,
  LogOpenRequest,
  LogSearchQuery,
  LogSearchResult,
  LogView,
  MergedLogInfo,
  MergedLogOpenRequest,
} from '../../../../shared/model';
import {
  defaultMaxLogBytes,
  defaultSearchLimit,
  locateLog,
  maxSearchLimit,
  OpenLog,
  type OpenLogTimings,
} from './index';
import type { SessionRegistry } from '../sessions';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';
import { nodeFiles } from '../nodes';
import { MergedLog } from './merged-log';
import { toMergedOpenRequest, toOpenRequest, toView } from './requests';
import { fieldKey, FieldView, type BaseView } from './field-view';
import { baseViewOf } from './views';
import { toCallOptions, type NodeManager } from '../nodes';

export const maxWindowLines = 10_000;

export interface LogsServiceOptions {
  /** Per log; default 256 MiB. */
  readonly maxBytes?: number;
  /** Default 16. */
  readonly maxOpenLogs?: number;
  /** Default 60 s. */
  readonly idleCloseMs?: number;
  /** How long a followed merged log holds lines back to place late ones (see MergedLog). */
  readonly reorderWindowMs?: number;
  readonly timings?: Partial<OpenLogTimings>;
}

interface Entry {
  readonly log: OpenLog | MergedLog;
  idleTimer: NodeJS.Timeout | undefined;
  /** Field-filtered views asked for, by view and filter. */
  readonly fields: Map<string, FieldView>;
}

const maxFieldViews = 4;

export class LogsServiceImpl implements ServiceHandler<'logs'>, Disposable {
  private readonly logs = new Map<string, Entry>();
  private readonly nodeWatch: Disposable;
  private readonly maxOpenLogs: number;
  private readonly idleCloseMs: number;

  constructor(
    private readonly nodes: NodeManager,
    private readonly sessions: SessionRegistry,
    private readonly options: LogsServiceOptions = {},
  ) {
    this.maxOpenLogs = options.maxOpenLogs ?? 16;
    this.idleCloseMs = options.idleCloseMs ?? 60_000;
    // A node that goes away takes its follows with it; what was read stays readable.
    this.nodeWatch = nodes.onDidChange(({ upserted, removed }) => {
      for (const log of this.openLogs()) {
        const nodeId = log.info.nodeId;
        const status = upserted.find((candidate) => candidate.nodeId === nodeId);
        if (status === undefined && !removed.includes(nodeId)) continue;
        // Reconnecting: the log file is still there, and the follow goes on.
        if (status?.state === 'connected' || status?.state === 'reconnecting') continue;
        log.stopFollowing({
          error: new AppError({
            code: 'connection-lost',
            message: `${status?.name ?? 'The node'} was disconnected; the log is no longer followed.`,
            hint: 'Connect the node again and reopen the log to follow it.',
          }),
        });
      }
    });
  }

  async open(request: LogOpenRequest, context?: CallContext): Promise<LogInfo> {
    const checked = toOpenRequest(request);
    this.checkRoom();
    const log = await this.openLog(checked, context);
    const entry: Entry = { log, idleTimer: undefined, fields: new Map() };
    const logId = log.info.logId;
    this.logs.set(logId, entry);
    log.onDidDispose = () => {
      clearTimeout(entry.idleTimer);
      if (this.logs.get(logId) === entry) this.logs.delete(logId);
    };
    // Closed if the caller goes away before it subscribes (or never does).
    if (log.subscriberCount === 0) this.scheduleIdleClose(entry);
    return log.info;
  }

  async openMerged(request: MergedLogOpenRequest, context?: CallContext): Promise<MergedLogInfo> {
    const checked = toMergedOpenRequest(request);
    this.checkRoom();
    const maxBytes = this.options.maxBytes ?? defaultMaxLogBytes;
    const opened = await Promise.allSettled(
      checked.targets.map(({ nodeId, containerId }) =>
        this.openLog(
          { ...checked.options, nodeId, containerId },
          context,
          Math.floor(maxBytes / checked.targets.length),
        ),
      ),
    );
    const logs = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = opened.find((result) => result.status === 'rejected');
    if (logs.length === 0 && failed !== undefined) throw failed.reason;
    // A container without a log (never started, no log directory) is left out; the info
    // lists the sources that opened.
    const logId = randomUUID();
    const merged = new MergedLog(logId, logs, this.options.reorderWindowMs);
    const entry: Entry = { log: merged, idleTimer: undefined, fields: new Map() };
    this.logs.set(logId, entry);
    merged.onDidDispose = () => {
      clearTimeout(entry.idleTimer);
      if (this.logs.get(logId) === entry) this.logs.delete(logId);
    };
    if (context?.signal.aborted === true) {
      merged.dispose();
      throw new AppError({ code: 'cancelled', message: 'The log was closed while it opened.' });
    }
    this.scheduleIdleClose(entry);
    return merged.info;
  }

  /** Finds and reads (following if asked) one container's log. */
  private async openLog(
    checked: LogOpenRequest,
    context?: CallContext,
    maxBytes = this.options.maxBytes ?? defaultMaxLogBytes,
  ): Promise<OpenLog> {
    const { nodeId, containerId } = checked;
    const client = this.nodes.client(nodeId);
    const files = nodeFiles(this.nodes, nodeId);
    const location = await locateLog(
      client,
      files,
      containerId,
      checked.previous === true,
      toCallOptions(context?.signal),
    );
    const log = new OpenLog({
      logId: randomUUID(),
      nodeId,
      nodeName: this.nodes.nodeName(nodeId),
      request: checked,
      location,
      files,
      client: () => this.nodes.client(nodeId),
      sessions: this.sessions,
      store: { maxBytes },
      ...(this.options.timings !== undefined && { timings: this.options.timings }),
    });
    let closed = false;
    log.onDidDispose = () => {
      closed = true;
    };
    const cancel = (): void => log.dispose();
    context?.signal.addEventListener('abort', cancel, { once: true });
    try {
      await log.start();
    } catch (error) {
      log.dispose();
      throw error;
    } finally {
      context?.signal.removeEventListener('abort', cancel);
    }
    if (closed) {
      throw new AppError({ code: 'cancelled', message: 'The log was closed while it opened.' });
    }
    return log;
  }

  /** A merged log counts as one: its sources share one log's memory bound. */
  private checkRoom(): void {
    if (this.logs.size >= this.maxOpenLogs) {
      throw new AppError({
        code: 'resource-exhausted',
        message: `Porthole has ${this.logs.size} logs open, as many as it keeps at once.`,
        hint: 'Close a log view, then try again.',
      });
    }
  }

  lines(
    logId: string,
    view: LogView,
    from: number,
    count: number,
  ): Promise<{ readonly lines: readonly LogLine[]; readonly total: number }> {
    const entry = this.require(logId);
    const checkedView = toView(view);
    const start = requireNonNegativeInteger(from, 'from');
    const wanted = Math.min(maxWindowLines, requireNonNegativeInteger(count, 'count'));
    const base = baseViewOf(entry.log, checkedView);
    const field = this.fieldView(entry, checkedView, base);
    return Promise.resolve(
      field === undefined
        ? { lines: base.window(start, wanted), total: base.total() }
        : { lines: field.window(base, start, wanted), total: field.total },
    );
  }

  search(
    logId: string,
    view: LogView,
    query: LogSearchQuery,
    limit?: number,
  ): Promise<LogSearchResult> {
    const entry = this.require(logId);
    const checkedView = toView(view);
    const max =
      limit === undefined
        ? defaultSearchLimit
        : Math.min(maxSearchLimit, requireNonNegativeInteger(limit, 'limit'));
    const base = baseViewOf(entry.log, checkedView);
    const field = this.fieldView(entry, checkedView, base);
    return Promise.resolve(
      field === undefined
        ? base.search(query, max)
        : field.search(base, query, max, maxSearchLimit),
    );
  }

  /** The view's field filter, kept per log and view (a few at a time), up to date. */
  private fieldView(entry: Entry, view: LogView, base: BaseView): FieldView | undefined {
    if (view.field === undefined) return undefined;
    const key = `${JSON.stringify([view.streams, view.sources])}\u0000${fieldKey(view.field)}`;
    let field = entry.fields.get(key);
    if (field === undefined) {
      if (entry.fields.size >= maxFieldViews) entry.fields.clear();
      field = new FieldView(view.field);
      entry.fields.set(key, field);
    }
    field.sync(base);
    return field;
  }

  close(logId: string): Promise<void> {
    this.logs.get(requireString(logId, 'logId'))?.log.dispose();
    return Promise.resolve();
  }

  /** The `logs` event: the log's state on subscribe, then its growth, rotation and end. */
  readonly events: EventSource['logs'] = (argument, sink) => {
    const logId = requireString(requireObject(argument, 'argument').logId, 'logId');
    const entry = this.logs.get(logId);
    if (entry === undefined) throw unknownLog();
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    const subscription = entry.log.subscribe(sink);
    return {
      dispose: () => {
        subscription.dispose();
        if (entry.log.subscriberCount === 0) this.scheduleIdleClose(entry);
      },
    };
  };

  dispose(): void {
    this.nodeWatch.dispose();
    for (const { log } of [...this.logs.values()]) log.dispose();
    this.logs.clear();
  }

  /** Every single log read now: the open ones, and the sources of the merged ones. */
  private *openLogs(): Generator<OpenLog> {
    for (const { log } of this.logs.values()) {
      if (log instanceof MergedLog) yield* log.sources;
      else yield log;
    }
  }

  private require(logId: unknown): Entry {
    const entry = this.logs.get(requireString(logId, 'logId'));
    if (entry === undefined) throw unknownLog();
    return entry;
  }

  private scheduleIdleClose(entry: Entry): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => entry.log.dispose(), this.idleCloseMs);
    entry.idleTimer.unref();
  }
}

function unknownLog(): AppError {
  return new AppError({
    code: 'not-found',
    message: 'That log is not open any more.',
    hint: 'It was closed, or left unwatched for a while: open it again.',
  });
}
