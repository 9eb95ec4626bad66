/**
 * Several containers' logs as one stream (a pod's containers, or a label selection across
 * pods and nodes): each is an OpenLog as the single view has it (found, read, tailed,
 * followed across rotation, searched in place), and a MergeIndex orders their lines by
 * CRI timestamp. Windows, filters (containers, streams) and searches are answered through
 * the merged index; the lines stay in their own stores.
 *
 * Following, each source's growth is merged up to the newest time seen less
 * `reorderWindowMs` (see defaultReorderWindowMs), and everything is merged once no source grew for that long, so a
 * line waits at most about that window, and a quiet container's line is still placed in
 * time among a busy one's.
 */
import { toAppErrorData } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { EventSink } from '../../../../shared/contract';
import type {
  LogLine,
  LogSearchQuery,
  LogSearchResult,
  LogUpdate,
  MergedLogInfo,
  MergedLogSource,
} from '../../../../shared/model';
import { NumberList } from './columns';
import { MergeIndex } from './merge';
import type { OpenLog } from './open-log';
import type { StreamSelection } from './selection';

/**
 * How long lines are held back to place late ones: the local follower wakes on fs.watch
 * and reports within its 100 ms update interval; SFTP polls every 500 ms on top of that.
 */
export function defaultReorderWindowMs(logs: readonly Pick<OpenLog, 'transport'>[]): number {
  return logs.some((log) => log.transport === 'sftp') ? 750 : 250;
}
const maxFilters = 8;

/** A view of the merged stream: which streams, and which sources (all when undefined). */
export interface MergedSelection {
  readonly streams: StreamSelection;
  readonly sources: ReadonlySet<number> | undefined;
}

/** A filtered view's merged positions, extended as lines are merged. */
interface Filter {
  readonly positions: NumberList;
  scanned: number;
}

export class MergedLog implements Disposable {
  readonly index: MergeIndex;
  private readonly sinks = new Set<EventSink<LogUpdate>>();
  private readonly childWatches: Disposable[] = [];
  private readonly filters = new Map<string, Filter>();
  private quietTimer: NodeJS.Timeout | undefined;
  private rotated: LogUpdate['rotated'];
  private disposed = false;
  onDidDispose: (() => void) | undefined;

  constructor(
    private readonly logId: string,
    private readonly logs: readonly OpenLog[],
    private readonly reorderWindowMs = defaultReorderWindowMs(logs),
  ) {
    this.index = new MergeIndex(logs.map((log) => log.store));
    // What was read on open is all merged at once: the window is for what comes next.
    this.index.advance();
    for (const log of logs) {
      this.childWatches.push(
        log.subscribe({
          next: (update) => this.onChildUpdate(update),
          error: () => undefined,
        }),
      );
    }
  }

  /** The single logs merged, in the request's order. */
  get sources(): readonly OpenLog[] {
    return this.logs;
  }

  get sourceCount(): number {
    return this.logs.length;
  }

  get following(): boolean {
    return this.logs.some((log) => log.info.following);
  }

  get info(): MergedLogInfo {
    return {
      logId: this.logId,
      following: this.following,
      lineCount: this.index.count,
      sources: this.logs.map((log): MergedLogSource => {
        const info = log.info;
        const { podName, namespace } = log.location;
        return {
          nodeId: info.nodeId,
          containerId: info.containerId,
          containerName: info.containerName,
          path: info.path,
          following: info.following,
          ...(podName !== undefined && { podName }),
          ...(namespace !== undefined && { namespace }),
        };
      }),
    };
  }

  /** Lines in a view now. */
  total(selection: MergedSelection): number {
    const filter = this.filter(selection);
    return filter === undefined ? this.index.count : filter.positions.length;
  }

  /** Lines `from`… of a view, decoded, each with its source; at most `count`. */
  window(selection: MergedSelection, from: number, count: number): LogLine[] {
    const filter = this.filter(selection);
    const total = filter === undefined ? this.index.count : filter.positions.length;
    const end = Math.min(total, from + count);
    const lines: LogLine[] = [];
    for (let index = from; index < end; index += 1) {
      const position = filter === undefined ? index : filter.positions.at(index);
      const { source, line } = this.index.at(position);
      const store = this.logs[source]?.store;
      if (store === undefined) continue;
      lines.push({ ...store.decode(line, index), source });
    }
    return lines;
  }

  /**
   * Each source's own search (bytes in place, or line by line), its matches mapped to
   * merged positions and then to the view's; the first `limit` in merged order.
   */
  search(selection: MergedSelection, query: LogSearchQuery, limit: number): LogSearchResult {
    const filter = this.filter(selection);
    const positions: number[] = [];
    let total = 0;
    let truncated = false;
    this.logs.forEach((log, source) => {
      if (selection.sources !== undefined && !selection.sources.has(source)) return;
      const found = log.searcher.search(selection.streams, query, limit);
      truncated ||= found.truncated;
      for (const index of found.lines) {
        const line = log.store.lineAt(selection.streams, index);
        const position = this.index.positionOf(source, line);
        // Not merged yet (inside the reorder window): found on the next search.
        if (position === undefined) continue;
        positions.push(position);
        total += 1;
      }
      // Matches past this source's limit are counted, not listed.
      total += found.total - found.lines.length;
    });
    positions.sort((a, b) => a - b);
    const listed = positions.slice(0, limit);
    const lines =
      filter === undefined
        ? listed
        : listed.map((position) => filter.positions.lowerBound(position));
    return { lines, total, truncated: truncated || total > lines.length };
  }

  subscribe(sink: EventSink<LogUpdate>): Disposable {
    this.sinks.add(sink);
    sink.next(this.snapshot());
    return toDisposable(() => this.sinks.delete(sink));
  }

  get subscriberCount(): number {
    return this.sinks.size;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.quietTimer);
    for (const watch of this.childWatches) watch.dispose();
    for (const log of this.logs) log.dispose();
    this.sinks.clear();
    this.onDidDispose?.();
  }

  // ---- merging as the sources grow ---------------------------------------------------

  private onChildUpdate(update: LogUpdate): void {
    if (this.disposed) return;
    if (update.rotated !== undefined) this.rotated = update.rotated;
    const following = this.following;
    // A source that stopped (or never followed) adds nothing more: flush what waits.
    const upTo = following
      ? this.index.latestTime() - this.reorderWindowMs
      : Number.POSITIVE_INFINITY;
    this.merge(upTo);
    clearTimeout(this.quietTimer);
    if (this.index.pending) {
      this.quietTimer = setTimeout(() => this.merge(), this.reorderWindowMs);
      this.quietTimer.unref();
    }
  }

  private merge(upTo?: number): void {
    if (this.disposed) return;
    if (this.index.compact() > 0) this.filters.clear();
    this.index.advance(upTo);
    this.emit();
  }

  private snapshot(): LogUpdate {
    const dropped = this.index.dropped;
    const failed = this.logs.find((log) => log.failure !== undefined)?.failure;
    return {
      lineCount: this.index.count,
      following: this.following,
      ...(dropped > 0 && { dropped }),
      ...(this.rotated !== undefined && { rotated: this.rotated }),
      ...(failed !== undefined && { error: toAppErrorData(failed) }),
    };
  }

  private emit(): void {
    const update = this.snapshot();
    this.rotated = undefined;
    for (const sink of [...this.sinks]) sink.next(update);
  }

  // ---- filtered views ------------------------------------------------------------------

  private filter(selection: MergedSelection): Filter | undefined {
    const { streams, sources } = selection;
    if (streams === 'all' && sources === undefined) return undefined;
    const key = `${streams}:${sources === undefined ? '*' : [...sources].sort().join(',')}`;
    let filter = this.filters.get(key);
    if (filter === undefined) {
      // A few views at a time (a page's filter choices); rebuilt when asked again.
      if (this.filters.size >= maxFilters) this.filters.clear();
      filter = { positions: new NumberList(), scanned: 0 };
      this.filters.set(key, filter);
    }
    // Built on first use and extended with what was merged since (as a store's streams).
    const index = this.index;
    for (let position = filter.scanned; position < index.count; position += 1) {
      if (sources !== undefined && !sources.has(index.sourceAt(position))) continue;
      if (streams !== 'all' && index.isStderr(position) !== (streams === 'stderr')) continue;
      filter.positions.push(position);
    }
    filter.scanned = index.count;
    return filter;
  }
}
