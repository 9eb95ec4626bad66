import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';
import type { FieldFilter } from '../log-fields';

/** Container logs, read from the CRI log file (locally or over SFTP). */
export type LogStream = 'stdout' | 'stderr';

export interface LogOpenRequest {
  readonly nodeId: string;
  readonly containerId: string;
  /** The container's previous attempt (like `kubectl logs --previous`). */
  readonly previous?: boolean;
  /** Only the last N lines of the file. */
  readonly tailLines?: number;
  /** Only lines at or after this time. */
  readonly since?: EpochMillis;
  /** Keep reading what is appended, across rotations. */
  readonly follow: boolean;
}

/** Which lines a view shows. */
export interface LogView {
  /** Default both. */
  readonly streams?: readonly LogStream[];
  /** A merged log only: which of its sources (positions in `MergedLogInfo.sources`); default all. */
  readonly sources?: readonly number[];
  /** Only JSON or logfmt lines with this field's value (`level=error`; see log-fields). */
  readonly field?: FieldFilter;
}

export interface LogLine {
  /** Position in the view the line was read with. */
  readonly index: number;
  readonly time: EpochMillis;
  /** The timestamp as the runtime wrote it (RFC 3339 with nanoseconds). */
  readonly timeText: string;
  readonly stream: LogStream;
  /** P/F partial lines already merged; no trailing newline. */
  readonly text: string;
  /** A merged log only: the line's source (its position in `MergedLogInfo.sources`). */
  readonly source?: number;
}

export interface LogInfo {
  readonly logId: string;
  /** The follow's session in the monitor; none when the log was read once, not followed. */
  readonly sessionId?: string;
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
  readonly path: string;
  readonly following: boolean;
  /** Lines in the whole log (all streams) when opened. */
  readonly lineCount: number;
}

export interface LogSearchQuery {
  readonly text: string;
  readonly regex?: boolean;
  readonly caseSensitive?: boolean;
}

export interface LogSearchResult {
  /** Indices (in the view) of matching lines, ascending; at most `limit`. */
  readonly lines: readonly number[];
  readonly total: number;
  readonly truncated: boolean;
}

/** What a log subscription receives as the file grows, rotates or fails. */
export interface LogUpdate {
  /** Lines in the whole log now (all streams). */
  readonly lineCount: number;
  readonly following: boolean;
  /** Set when the file was rotated or truncated since the last update. */
  readonly rotated?: 'rotated' | 'truncated';
  /** Lines dropped from the start to stay within the memory bound. */
  readonly dropped?: number;
  /** Following stopped: why. */
  readonly error?: AppErrorData;
}

/**
 * Several containers' logs as one stream, ordered by their CRI timestamps (a pod's
 * containers, or a label selection across pods and nodes). `tailLines` and `since`
 * apply to each container's log, as `kubectl logs --all-containers` does.
 */
export interface MergedLogOpenRequest {
  /** At most 32. */
  readonly targets: readonly { readonly nodeId: string; readonly containerId: string }[];
  readonly previous?: boolean;
  readonly tailLines?: number;
  readonly since?: EpochMillis;
  readonly follow: boolean;
}

export interface MergedLogSource {
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
  readonly podName?: string;
  readonly namespace?: string;
  readonly path: string;
  readonly following: boolean;
}

export interface MergedLogInfo {
  /** Read with `logs.lines`, `logs.search`, the `logs` event, and closed with `logs.close`. */
  readonly logId: string;
  readonly following: boolean;
  /** Lines merged when opened. */
  readonly lineCount: number;
  /** In the order the request named them; a line's `source` is a position here. */
  readonly sources: readonly MergedLogSource[];
}
