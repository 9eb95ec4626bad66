/**
 * The Logs view's state, kept for the window's lifetime (switching views keeps the log
 * open): which container, how it was opened, the view (streams, timestamps), the lines
 * cached from the core, and the search. The core holds the log; this holds a window.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData } from '../../../../shared/errors';
import type { LogSearchQuery, LogUpdate, LogView } from '../../../../shared/model';
import { parseFieldFilter } from '../../../../shared/log-fields';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import type { Disposable } from '../../platform';
import { LineCache } from './line-cache';
import { collectLogText, logFileName } from './log-text';
import { sourceNames } from './source-colour';
import {
  viewOf,
  type LogOptions,
  type LogsState,
  type LogTarget,
  type SearchState,
  type StreamChoice,
} from './log-types';
import { saveText } from '../../ui/save-file';

export type {
  LogOptions,
  LogsState,
  LogTarget,
  MergedTarget,
  SearchState,
  StreamChoice,
} from './log-types';

export const defaultOptions: LogOptions = { follow: true, previous: false, tailLines: 10_000 };
export const searchLimit = 20_000;
const searchDebounceMs = 100;
const growthSearchIntervalMs = 1000;

const emptySearch: SearchState = {
  text: '',
  regex: false,
  caseSensitive: false,
  current: -1,
  busy: false,
};

export class LogsController implements Disposable {
  readonly store: StoreApi<LogsState>;
  /** The first line on screen, as the list last reported it. */
  viewportTop = 0;
  /** Where the list was scrolled (restored when the view comes back). */
  scrollTop = 0;
  /** The last `reveal` the list acted on (a list mounted later must not act again). */
  revealed = 0;
  private subscription: Disposable | undefined;
  private openSeq = 0;
  private revealSeq = 0;
  private searchSeq = 0;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  private fieldTimer: ReturnType<typeof setTimeout> | undefined;
  private growthSearchTimer: ReturnType<typeof setTimeout> | undefined;
  private totalSeq = 0;
  private disposed = false;

  constructor(private readonly model: AppModel) {
    this.store = createStore<LogsState>()(() => ({
      options: defaultOptions,
      streams: 'all',
      sources: [],
      sourceNames: [],
      fields: true,
      fieldFilterText: '',
      timestamps: true,
      phase: 'idle',
      following: false,
      lineCount: 0,
      total: 0,
      dropped: 0,
      stick: true,
      search: emptySearch,
      cache: linesOf(this.model, undefined, {}),
    }));
  }

  private get state(): LogsState {
    return this.store.getState();
  }

  private set(change: Partial<LogsState>): void {
    this.store.setState(change);
  }

  /** Whether the view shows every line of the log (its total is the log's line count). */
  private wholeView(): boolean {
    const { streams, sourceFilter, fieldFilter } = this.state;
    return streams === 'all' && sourceFilter === undefined && fieldFilter === undefined;
  }

  /** The current view as the core reads it. */
  private view(): LogView {
    return viewOf(this.state.streams, this.state.sourceFilter, this.state.fieldFilter);
  }

  // ---- opening ----------------------------------------------------------------------

  /** Opens a container's log with the current options (closing the one open). */
  openFor(target: LogTarget, options?: Partial<LogOptions>): Promise<void> {
    this.set({
      target,
      sourceFilter: undefined,
      options: { ...this.state.options, ...options, previous: options?.previous ?? false },
    });
    return this.reopen();
  }

  setOptions(change: Partial<LogOptions>): Promise<void> {
    this.set({ options: { ...this.state.options, ...change } });
    return this.reopen();
  }

  /** Opens the target again with the current options: the Reopen and Retry buttons. */
  async reopen(): Promise<void> {
    const target = this.state.target;
    if (target === undefined) return;
    this.closeCurrent();
    const seq = (this.openSeq += 1);
    const { options } = this.state;
    this.scrollTop = 0;
    this.set({
      phase: 'opening',
      info: undefined,
      openError: undefined,
      followError: undefined,
      following: false,
      lineCount: 0,
      total: 0,
      dropped: 0,
      stick: true,
      search: { ...this.state.search, result: undefined, answered: undefined, current: -1 },
      sources: [],
      sourceNames: [],
      cache: linesOf(this.model, undefined, {}),
    });
    try {
      const read = {
        follow: options.follow,
        ...(options.previous && { previous: true }),
        ...(options.tailLines !== undefined && { tailLines: options.tailLines }),
        ...(options.sinceSeconds !== undefined && {
          since: Date.now() - options.sinceSeconds * 1000,
        }),
      };
      const logs = this.model.client.services.logs;
      const info =
        target.merged === undefined
          ? await logs.open({ nodeId: target.nodeId, containerId: target.containerId, ...read })
          : await logs.openMerged({
              targets: target.merged.map(({ nodeId, containerId }) => ({ nodeId, containerId })),
              ...read,
            });
      if (seq !== this.openSeq || this.disposed) {
        // Superseded while opening: a close that fails finds the log gone already.
        void this.model.client.services.logs.close(info.logId).catch(() => undefined);
        return;
      }
      this.set({
        phase: 'open',
        info,
        sources: 'sources' in info ? info.sources : [],
        sourceNames: 'sources' in info ? sourceNames(info.sources) : [],
        cache: linesOf(this.model, info.logId, this.view()),
        following: info.following,
        lineCount: info.lineCount,
        total: this.wholeView() ? info.lineCount : 0,
      });
      this.subscription = this.model.client.subscribe(
        'logs',
        { logId: info.logId },
        (update) => this.onUpdate(info.logId, update),
        (error) => {
          if (this.state.info?.logId !== info.logId) return;
          this.set({ following: false, followError: toAppErrorData(error) });
        },
      );
      if (!this.wholeView()) this.refreshTotal();
      if (this.state.search.text !== '') this.runSearch();
    } catch (error) {
      if (seq !== this.openSeq) return;
      this.set({ phase: 'failed', openError: toAppErrorData(error) });
    }
  }

  /** Closes the log in the core (the view keeps its target and options). */
  close(): void {
    this.openSeq += 1;
    this.closeCurrent();
    this.set({ phase: 'idle', info: undefined, following: false, lineCount: 0, total: 0 });
  }

  private closeCurrent(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
    clearTimeout(this.growthSearchTimer);
    this.growthSearchTimer = undefined;
    const logId = this.state.info?.logId;
    if (logId !== undefined) {
      // Moving on from this log: a close that fails finds it gone already (a lost node).
      void this.model.client.services.logs.close(logId).catch(() => undefined);
    }
  }

  private onUpdate(logId: string, update: LogUpdate): void {
    if (this.state.info?.logId !== logId) return;
    const dropped = update.dropped ?? 0;
    const droppedMore = dropped !== this.state.dropped;
    this.set({
      following: update.following,
      lineCount: update.lineCount,
      dropped,
      ...(update.error !== undefined && { followError: update.error }),
    });
    if (droppedMore) this.state.cache.reset();
    if (this.wholeView()) this.grewTo(update.lineCount, droppedMore);
    else this.refreshTotal();
  }

  /** The view's line count from the core (a one-stream view counts its own lines). */
  private refreshTotal(): void {
    const logId = this.state.info?.logId;
    if (logId === undefined) return;
    const seq = (this.totalSeq += 1);
    this.model.client.services.logs.lines(logId, this.view(), 0, 0).then(
      ({ total }) => {
        if (seq === this.totalSeq && this.state.info?.logId === logId) this.grewTo(total, false);
      },
      () => undefined,
    );
  }

  private grewTo(total: number, reset: boolean): void {
    const before = this.state.total;
    if (total === before && !reset) return;
    // The page that held the last line may have been short: fetch it again.
    if (!reset) this.state.cache.invalidateFrom(Math.min(before, total));
    this.set({ total });
    if (this.state.search.text !== '') this.scheduleGrowthSearch();
  }

  // ---- the view ---------------------------------------------------------------------

  setStreams(streams: StreamChoice): void {
    if (streams === this.state.streams) return;
    this.changeView({ streams });
  }

  /** Shows only these of a merged log's containers (undefined: all of them). */
  setSourceFilter(sources: readonly number[] | undefined): void {
    const all = sources === undefined || sources.length === this.state.sources.length;
    this.changeView({ sourceFilter: all ? undefined : [...sources].sort((a, b) => a - b) });
  }

  /** Shows or hides one of a merged log's containers. */
  toggleSource(source: number): void {
    const shown = this.state.sourceFilter ?? this.state.sources.map((_, i) => i);
    const next = shown.includes(source) ? shown.filter((s) => s !== source) : [...shown, source];
    // Hiding the last one shows nothing: it is not a view anyone wants.
    if (next.length > 0) this.setSourceFilter(next);
  }

  /** Fields or raw text, for JSON and logfmt lines. */
  setFields(fields: boolean): void {
    this.set({ fields });
  }

  /** The field filter as typed: applied once it reads `key=value`, dropped when emptied. */
  setFieldFilterText(text: string): void {
    this.set({ fieldFilterText: text });
    clearTimeout(this.fieldTimer);
    this.fieldTimer = setTimeout(() => {
      const filter = text.trim() === '' ? undefined : parseFieldFilter(text);
      if (filter === undefined && text.trim() !== '') return;
      const current = this.state.fieldFilter;
      if (filter?.key === current?.key && filter?.value === current?.value) return;
      this.changeView({ fieldFilter: filter });
    }, searchDebounceMs);
  }

  private changeView(
    change: Pick<Partial<LogsState>, 'streams' | 'sourceFilter' | 'fieldFilter'>,
  ): void {
    this.scrollTop = 0;
    this.set({ ...change, total: 0, stick: true });
    this.set({ cache: linesOf(this.model, this.state.info?.logId, this.view()) });
    if (this.wholeView()) this.set({ total: this.state.lineCount });
    else this.refreshTotal();
    if (this.state.search.text !== '') this.runSearch();
  }

  setTimestamps(timestamps: boolean): void {
    this.set({ timestamps });
  }

  setStick(stick: boolean): void {
    if (stick !== this.state.stick) this.set({ stick });
  }

  /** Back to the newest lines, following them. */
  jumpToEnd(): void {
    this.set({ stick: true });
  }

  reveal(index: number): void {
    this.set({ stick: false, reveal: { index, seq: (this.revealSeq += 1) } });
  }

  // ---- search -----------------------------------------------------------------------

  setSearch(change: Partial<Pick<SearchState, 'text' | 'regex' | 'caseSensitive'>>): void {
    this.set({ search: { ...this.state.search, ...change } });
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => this.runSearch(), searchDebounceMs);
  }

  /** The user is about to search: the core gets ready (see LogsService.search). */
  prepareSearch(): void {
    const logId = this.state.info?.logId;
    if (logId === undefined) return;
    this.model.client.services.logs
      .search(logId, this.view(), { text: '' }, 0)
      // Only a head start: the search that follows reports any failure itself.
      .catch(() => undefined);
  }

  /** Steps to the next (1) or previous (-1) match, wrapping around. */
  step(direction: 1 | -1): void {
    const { result, current } = this.state.search;
    const count = result?.lines.length ?? 0;
    if (result === undefined || count === 0) return;
    const next =
      current < 0 ? (direction > 0 ? 0 : count - 1) : (current + direction + count) % count;
    this.set({ search: { ...this.state.search, current: next } });
    this.reveal(result.lines[next] ?? 0);
  }

  private scheduleGrowthSearch(): void {
    if (this.growthSearchTimer !== undefined) return;
    this.growthSearchTimer = setTimeout(() => {
      this.growthSearchTimer = undefined;
      this.runSearch(true);
    }, growthSearchIntervalMs);
  }

  /**
   * Asks the core for the matching lines. A new search shows the match nearest the top
   * of the screen; a search re-run because the log grew keeps the current match.
   */
  runSearch(keepPosition = false): void {
    clearTimeout(this.searchTimer);
    this.searchTimer = undefined;
    const { search, info } = this.state;
    const logId = info?.logId;
    const seq = (this.searchSeq += 1);
    if (search.text === '' || logId === undefined) {
      this.set({
        search: {
          ...search,
          result: undefined,
          answered: undefined,
          current: -1,
          busy: false,
          error: undefined,
        },
      });
      return;
    }
    const query: LogSearchQuery = {
      text: search.text,
      ...(search.regex && { regex: true }),
      ...(search.caseSensitive && { caseSensitive: true }),
    };
    this.set({ search: { ...search, busy: true } });
    this.model.client.services.logs.search(logId, this.view(), query, searchLimit).then(
      (result) => {
        if (seq !== this.searchSeq) return;
        const previous = this.state.search;
        const keptLine =
          keepPosition && previous.result !== undefined
            ? previous.result.lines[previous.current]
            : undefined;
        let current: number;
        if (keptLine !== undefined) {
          current = result.lines.indexOf(keptLine);
        } else {
          const after = result.lines.findIndex((line) => line >= this.viewportTop);
          current = after >= 0 ? after : result.lines.length - 1;
        }
        this.set({
          search: { ...previous, result, answered: query, current, busy: false, error: undefined },
        });
        const line = result.lines[current];
        if (!keepPosition && line !== undefined) this.reveal(line);
      },
      (error: unknown) => {
        if (seq !== this.searchSeq) return;
        this.set({
          search: {
            ...this.state.search,
            result: undefined,
            answered: undefined,
            current: -1,
            busy: false,
            error: toAppErrorData(error),
          },
        });
      },
    );
  }

  // ---- download ---------------------------------------------------------------------

  /** The view's lines as text, each as the view shows it (see collectLogText), saved. */
  async download(): Promise<void> {
    const { target, info, timestamps, sourceNames: names } = this.state;
    if (target === undefined || info === undefined || this.state.download !== undefined) return;
    this.set({ download: { saved: 0, total: this.state.total } });
    try {
      const view = this.view();
      const text = await collectLogText(
        (from, count) => this.model.client.services.logs.lines(info.logId, view, from, count),
        { timestamps, names },
        (saved, total) => this.set({ download: { saved, total } }),
      );
      saveText(logFileName(target, this.state.options.previous), text);
    } catch (error) {
      this.model.toasts.getState().show({
        tone: 'error',
        title: 'Could not download the log',
        error: toAppErrorData(error),
      });
    } finally {
      this.set({ download: undefined });
    }
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.searchTimer);
    clearTimeout(this.fieldTimer);
    this.close();
  }
}

/** A cache of one log's lines in one view. */
function linesOf(model: AppModel, logId: string | undefined, view: LogView): LineCache {
  return new LineCache((from, count) =>
    logId === undefined
      ? Promise.resolve({ lines: [], total: 0 })
      : model.client.services.logs.lines(logId, view, from, count),
  );
}

const logsState = new FeatureState('logs', (model) => new LogsController(model));

/** The Logs view's controller for this window (created on first use). */
export function logsControllerOf(model: AppModel): LogsController {
  return model.featureState(logsState);
}
