import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';

/**
 * "Run on many" (a fan-out): one command on many running containers across the connected
 * nodes, in parallel with a bounded fan-out, each container a row of the run's result grid.
 */

/** One container named by the user (a selection in the containers view). */
export interface FanoutContainerRef {
  readonly nodeId: string;
  readonly containerId: string;
}

/**
 * Which containers a run targets. Only running containers can run a command, so the
 * `labels` and `name` kinds match running ones; `nodeIds` narrows them to some nodes
 * (default: every connected node).
 *
 * - `selection`: exactly these containers.
 * - `labels`: a label selector, comma-separated terms that must all hold: `key=value`
 *   (also `key==value`), `key!=value`, `key` (the label exists), `!key` (it does not).
 * - `name`: a regular expression (RE2 syntax, as crictl's `--name`) matched against the
 *   container's name, anywhere in it unless anchored.
 */
export type FanoutTargets =
  | { readonly kind: 'selection'; readonly containers: readonly FanoutContainerRef[] }
  | { readonly kind: 'labels'; readonly selector: string; readonly nodeIds?: readonly string[] }
  | { readonly kind: 'name'; readonly pattern: string; readonly nodeIds?: readonly string[] };

/**
 * How each command runs. `sync`: CRI ExecSync, the runtime runs it to the end (or its
 * timeout) and returns the output in one answer. `stream`: streaming exec (SPDY or
 * WebSocket), output arrives as it runs and has no size limit in the runtime. `auto`:
 * ExecSync for a short command (a timeout of at most `fanoutSyncMaxTimeoutSeconds`),
 * streaming for a long one (no timeout, or a longer one).
 */
export type FanoutMode = 'auto' | 'sync' | 'stream';

export interface FanoutRequest {
  readonly targets: FanoutTargets;
  /** The command and its arguments, as exec takes them (no shell unless it is `sh -c …`). */
  readonly command: readonly string[];
  readonly mode?: FanoutMode;
  /** Seconds each container's command may run; 0 = no limit. Default 10. */
  readonly timeoutSeconds?: number;
  /** How many containers run at once, 1…32; default 8. */
  readonly concurrency?: number;
}

/** The run's way of executing, and why, in a sentence the grid shows. */
export interface FanoutMethod {
  readonly method: 'exec-sync' | 'stream';
  readonly reason: string;
}

/**
 * queued → running → exited (the command ran: see exitCode) | failed (it could not run, or
 * the runtime failed it) | cancelled | vanished (the container was removed or stopped, or
 * its node dropped: see `reason`).
 */
export type FanoutRowState = 'queued' | 'running' | 'exited' | 'failed' | 'cancelled' | 'vanished';

export interface FanoutOutput {
  /** The text (UTF-8, invalid bytes replaced), at most `fanoutOutputCap` bytes of it. */
  readonly text: string;
  /** The whole output's size in bytes, also what was cut off. */
  readonly bytes: number;
  readonly truncated: boolean;
}

export interface FanoutRow {
  /** `<nodeId>/<containerId>`, or `<nodeId>/` for a node that could not be searched. */
  readonly key: string;
  readonly nodeId: string;
  readonly nodeName: string;
  /** Empty on a node's own row (the node was not connected, or listing it failed). */
  readonly containerId: string;
  readonly containerName: string;
  readonly podName: string;
  readonly podNamespace: string;
  readonly state: FanoutRowState;
  readonly exitCode?: number;
  readonly startedAt?: EpochMillis;
  readonly durationMs?: number;
  readonly stdout: FanoutOutput;
  readonly stderr: FanoutOutput;
  /**
   * The same for rows whose exit code, stdout and stderr are the same bytes (whole, also
   * past the cap): the grid groups on it. Set once the row ended with output.
   */
  readonly outputDigest?: string;
  /** Why it failed, vanished or was cancelled, in a sentence. */
  readonly reason?: string;
  readonly error?: AppErrorData;
  /** The transport of a streaming exec (`spdy`, `websocket`). */
  readonly transport?: string;
}

export type FanoutRunState = 'running' | 'done' | 'cancelled';

export interface FanoutRunInfo {
  readonly runId: string;
  readonly request: FanoutRequest & {
    readonly mode: FanoutMode;
    readonly timeoutSeconds: number;
    readonly concurrency: number;
  };
  readonly method: FanoutMethod;
  readonly state: FanoutRunState;
  readonly startedAt: EpochMillis;
  readonly endedAt?: EpochMillis;
}

/**
 * The `fanout` event: the run and all its rows first (`reset: true`), then the rows that
 * changed (in batches), and the run itself whenever its state changes.
 */
export interface FanoutUpdate {
  readonly reset: boolean;
  readonly run: FanoutRunInfo;
  readonly rows: readonly FanoutRow[];
}

/** Bounds a run keeps to. */
export const fanoutLimits = {
  /** Containers in one run. */
  maxTargets: 512,
  maxConcurrency: 32,
  defaultConcurrency: 8,
  defaultTimeoutSeconds: 10,
  maxTimeoutSeconds: 24 * 3600,
  /** Bytes of each stream kept per row. */
  outputCap: 64 * 1024,
  /** Runs kept (the oldest ended one goes first). */
  maxRuns: 8,
  /** The longest timeout `auto` still runs with ExecSync. */
  syncMaxTimeoutSeconds: 30,
  maxCommandArgs: 256,
  maxCommandLength: 64 * 1024,
} as const;
