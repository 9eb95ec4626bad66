/** What the Logs view opens (a container, or a pod's containers merged) and how. */
import type { AppErrorData } from '../../../../shared/errors';
import type { FieldFilter } from '../../../../shared/log-fields';
import type { LogSearchQuery, LogSearchResult, LogStream, LogView } from '../../../../shared/model';

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
