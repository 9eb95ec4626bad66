/** What the Logs view opens (a container, or a pod's containers merged) and how. */
import type { AppErrorData } from '../../../../shared/errors';
import type { FieldFilter } from '../../../../shared/log-fields';
import type {
  LogInfo,
  LogSearchQuery,
  LogSearchResult,
  LogStream,
  LogView,
  MergedLogInfo,
  MergedLogSource,
} from '../../../../shared/model';
import type { LineCache } from './line-cache';

export interface LogTarget {
  readonly nodeId: string;
  /** For a merged target, a key of its own (`pod:<sandbox id>`): no container has it. */
  readonly containerId: string;
  readonly containerName: string;
  readonly podName?: string;
  readonly namespace?: string;
  /** Several containers' logs merged by time into one (a pod's "all containers"). */
  readonly merged?: readonly MergedTarget[];
}

export interface MergedTarget {
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
}

export interface LogOptions {
  readonly follow: boolean;
  readonly previous: boolean;
  /** Undefined: the whole file. */
  readonly tailLines?: number;
  /** Only lines this recent (seconds); undefined: any age. */
  readonly sinceSeconds?: number;
}

export type StreamChoice = 'all' | LogStream;

export interface SearchState {
  readonly text: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  /** The query the result answers (the text may have moved on while it ran). */
  readonly answered?: LogSearchQuery;
  readonly result?: LogSearchResult;
  /** Position in `result.lines` of the match shown; -1 for none. */
  readonly current: number;
  readonly busy: boolean;
  readonly error?: AppErrorData;
}

/** A view as the core reads it: its streams, a merged log's containers, a field filter. */
export function viewOf(
  streams: StreamChoice,
  sources?: readonly number[],
  field?: FieldFilter,
): LogView {
  return {
    ...(streams !== 'all' && { streams: [streams] }),
    ...(sources !== undefined && { sources }),
    ...(field !== undefined && { field }),
  };
}

/** The Logs view's state (see LogsController). */
export interface LogsState {
  readonly target?: LogTarget;
  readonly options: LogOptions;
  readonly streams: StreamChoice;
  readonly timestamps: boolean;
  readonly phase: 'idle' | 'opening' | 'open' | 'failed';
  readonly info?: LogInfo | MergedLogInfo;
  /** A merged log's containers (a line's `source` is a position here); empty otherwise. */
  readonly sources: readonly MergedLogSource[];
  /** Their names as the view shows them (see sourceNames). */
  readonly sourceNames: readonly string[];
  /** Which of them the view shows; undefined: all. */
  readonly sourceFilter?: readonly number[];
  /** JSON and logfmt lines shown as fields (level, msg, the rest folded), or raw. */
  readonly fields: boolean;
  /** The view's field filter as typed (`level=error`), and as the core applies it. */
  readonly fieldFilterText: string;
  readonly fieldFilter?: FieldFilter;
  readonly openError?: AppErrorData;
  readonly following: boolean;
  /** Why following stopped, when it stopped by itself. */
  readonly followError?: AppErrorData;
  /** Lines in the log (both streams), and in the current view. */
  readonly lineCount: number;
  readonly total: number;
  readonly dropped: number;
  /** Keep the newest line in view as lines arrive (until the user scrolls up). */
  readonly stick: boolean;
  /** A line the list should bring into view; `seq` changes with every request. */
  readonly reveal?: { readonly index: number; readonly seq: number };
  readonly search: SearchState;
  /** The cached lines of the current log and view (replaced with either). */
  readonly cache: LineCache;
  /** Lines saved so far by a download under way. */
  readonly download?: { readonly saved: number; readonly total: number };
}
