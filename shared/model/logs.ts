import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';

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
