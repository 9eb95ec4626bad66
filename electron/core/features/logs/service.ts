/**
 * The `logs` service and event: a container's log is opened once in the core (found,
 * read into an indexed store, followed if asked) and read in windows, so a million lines
 * never cross the wire at once.
 *
 * Bounds: each log holds at most `maxBytes` (the store's cap: the oldest lines are
 * dropped past it), at most `maxOpenLogs` are open at once, a window is at most
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
} from '../../../../shared/model';
import {
  defaultMaxLogBytes,
  defaultSearchLimit,
  locateLog,
  maxSearchLimit,
  OpenLog,
  toStreamSelection,
  type OpenLogTimings,
} from './index';
import type { SessionRegistry } from '../sessions';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';
import { nodeFiles } from '../nodes';
import { toCallOptions, type NodeManager } from '../nodes';

export const maxWindowLines = 10_000;

export interface LogsServiceOptions {
  /** Per log; default 256 MiB. */
  readonly maxBytes?: number;
  /** Default 16. */
  readonly maxOpenLogs?: number;
  /** Default 60 s. */
  readonly idleCloseMs?: number;
  readonly timings?: Partial<OpenLogTimings>;
}

interface Entry {
  readonly log: OpenLog;
  idleTimer: NodeJS.Timeout | undefined;
}

function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    throw new AppError({ code: 'invalid-argument', message: `${name} must be true or false.` });
  }
  return value;
}

function toOpenRequest(value: unknown): LogOpenRequest {
  const request = requireObject(value, 'request');
  const previous = optionalBoolean(request.previous, 'previous');
  const follow = optionalBoolean(request.follow, 'follow') ?? false;
  const tailLines =
    request.tailLines === undefined
      ? undefined
      : requireNonNegativeInteger(request.tailLines, 'tailLines');
  let since: number | undefined;
  if (request.since !== undefined) {
    if (typeof request.since !== 'number' || !Number.isFinite(request.since)) {
      throw new AppError({
        code: 'invalid-argument',
        message: 'since must be a time (epoch milliseconds).',
      });
    }
    since = request.since;
  }
  return {
    nodeId: requireString(request.nodeId, 'nodeId'),
    containerId: requireString(request.containerId, 'containerId'),
    follow,
    ...(previous !== undefined && { previous }),
    ...(tailLines !== undefined && { tailLines }),
    ...(since !== undefined && { since }),
  };
}

function toView(value: unknown): LogView {
  if (value === undefined) return {};
  const view = requireObject(value, 'view');
  return view.streams === undefined ? {} : { streams: view.streams as LogView['streams'] };
}

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
      for (const { log } of this.logs.values()) {
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
    if (this.logs.size >= this.maxOpenLogs) {
      throw new AppError({
        code: 'resource-exhausted',
        message: `Porthole has ${this.logs.size} logs open, as many as it keeps at once.`,
        hint: 'Close a log view, then try again.',
      });
    }
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
    const logId = randomUUID();
    const log = new OpenLog({
      logId,
      nodeId,
      nodeName: this.nodes.nodeName(nodeId),
      request: checked,
      location,
      files,
      client: () => this.nodes.client(nodeId),
      sessions: this.sessions,
      store: { maxBytes: this.options.maxBytes ?? defaultMaxLogBytes },
      ...(this.options.timings !== undefined && { timings: this.options.timings }),
    });
    const entry: Entry = { log, idleTimer: undefined };
    this.logs.set(logId, entry);
    log.onDidDispose = () => {
      clearTimeout(entry.idleTimer);
      if (this.logs.get(logId) === entry) this.logs.delete(logId);
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
    if (!this.logs.has(logId)) {
      throw new AppError({ code: 'cancelled', message: 'The log was closed while it opened.' });
    }
    // Closed if the caller goes away before it subscribes (or never does).
    if (log.subscriberCount === 0) this.scheduleIdleClose(entry);
    return log.info;
  }

  lines(
    logId: string,
    view: LogView,
    from: number,
    count: number,
  ): Promise<{ readonly lines: readonly LogLine[]; readonly total: number }> {
    const log = this.require(logId);
    const selection = toStreamSelection(toView(view).streams);
    const start = requireNonNegativeInteger(from, 'from');
    const wanted = Math.min(maxWindowLines, requireNonNegativeInteger(count, 'count'));
    return Promise.resolve({
      lines: log.store.window(selection, start, wanted),
      total: log.store.total(selection),
    });
  }

  search(
    logId: string,
    view: LogView,
    query: LogSearchQuery,
    limit?: number,
  ): Promise<LogSearchResult> {
    const log = this.require(logId);
    const selection = toStreamSelection(toView(view).streams);
    const max =
      limit === undefined
        ? defaultSearchLimit
        : Math.min(maxSearchLimit, requireNonNegativeInteger(limit, 'limit'));
    return Promise.resolve(log.searcher.search(selection, query, max));
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

  private require(logId: unknown): OpenLog {
    const entry = this.logs.get(requireString(logId, 'logId'));
    if (entry === undefined) throw unknownLog();
    return entry.log;
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
