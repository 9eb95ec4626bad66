import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';
import type { SessionAttempt, SessionTransport } from './session';

/** Terminals: exec and attach sessions driven by an xterm.js pane. */
export type TerminalKind = 'exec' | 'attach';
export type TerminalTransportChoice = 'auto' | 'spdy' | 'websocket';

/**
 * The `step` of the error an exec without a command fails with when the container has no
 * shell (`terminals.probeShell`): what the UI offers a debug container on.
 */
export const noShellStep = 'probe-shell';

export interface TerminalOpenRequest {
  readonly nodeId: string;
  readonly containerId: string;
  readonly kind: TerminalKind;
  /** exec only: the command; the container's shell (see `terminals.probeShell`) when absent. */
  readonly command?: readonly string[];
  /** Size the pane starts with: sent before the first byte, the PTY starts at 0×0. */
  readonly cols: number;
  readonly rows: number;
  /** Default `auto`: SPDY, then WebSocket when the runtime refuses it. */
  readonly transport?: TerminalTransportChoice;
}

export interface TerminalInfo {
  readonly terminalId: string;
  /** The session monitor's id for it. */
  readonly sessionId: string;
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
  readonly kind: TerminalKind;
  /** exec: the command that runs; attach: empty. */
  readonly command: readonly string[];
  /** Whether a PTY is behind it (exec: always; attach: the container's own tty setting). */
  readonly tty: boolean;
  /** Whether keystrokes reach the process (attach to a container without stdin: no). */
  readonly stdin: boolean;
  readonly transport: SessionTransport;
  readonly protocol: string;
  readonly attempts: readonly SessionAttempt[];
  /** When the session was asked for (just before the Exec or Attach call). */
  readonly openedAt: EpochMillis;
}

/** Which exec session's process to look for (see `terminals.findLeftover`). */
export interface LeftoverRef {
  readonly nodeId: string;
  readonly containerId: string;
  /** The session's command, exactly as it was run. */
  readonly command: readonly string[];
  /** TerminalInfo.openedAt of the session. */
  readonly openedAt: EpochMillis;
}

/** An exec session's process, still running in the container after its stream broke. */
export interface LeftoverProcess {
  /** In the container's PID namespace. */
  readonly pid: number;
  readonly command: readonly string[];
  /** Its start time in clock ticks since the node booted: what tells it from a reused pid. */
  readonly startTicks: number;
  readonly runningForMs: number;
}

/**
 * Flow control between the core and a pane, as VS Code's terminals do it: the core stops
 * reading a terminal's output while more than `highWatermark` bytes are unacknowledged and
 * reads again below `lowWatermark`; the pane acknowledges what xterm has parsed only in
 * whole batches of `ackBatchBytes`. The batch is no larger than the low watermark, so the
 * few bytes a pane never acknowledges can't keep the core paused, and an echoed keystroke
 * costs no acknowledgement at all.
 *
 * Chosen from `npm run bench` (term_flood_mbps against term_flood_raw_mbps, two runs
 * each, on a loaded 2-core machine): VS Code's 100 KiB / 5 KiB with 4 KiB batches gave
 * 1.2–1.4 MB/s; 256 / 64 / 32 KiB gave 1.3–1.4; 1 MiB / 256 KiB / 128 KiB gave 2.1–3.1,
 * the pipeline (container, core, WebSocket, xterm) kept full while acknowledgements travel.
 * The price is up to 1 MiB queued ahead of a Ctrl-C during a flood, well under a second
 * of xterm's parsing.
 */
export const terminalFlow = {
  highWatermark: 1024 * 1024,
  lowWatermark: 256 * 1024,
  ackBatchBytes: 128 * 1024,
} as const;

/**
 * What a terminal subscription receives. Output bytes travel as bytes (structured clone in
 * Electron, binary WebSocket frames in browser mode) and must be acknowledged with
 * `terminals.ack` once drawn: the core stops reading from the container while too much is
 * unacknowledged.
 */
export type TerminalEvent =
  | {
      readonly type: 'output';
      /** Without a tty the two streams are apart; with one everything is stdout. */
      readonly stream: 'stdout' | 'stderr';
      readonly data: Uint8Array;
    }
  | {
      /**
       * Something went wrong without ending the session (input refused, a size not
       * applied): the answer to a `write` or `resize`, which are notifications.
       */
      readonly type: 'notice';
      readonly error: AppErrorData;
    }
  | {
      readonly type: 'exit';
      /** exec: the process's exit code when the runtime reported one. */
      readonly exitCode?: number;
      /** One sentence for the pane: how it ended. */
      readonly reason: string;
      /** Set when the transport failed rather than the process ending. */
      readonly error?: AppErrorData;
      /**
       * exec: the stream broke before the runtime said the process ended, so it may still
       * be running in the container (`terminals.findLeftover` looks for it).
       */
      readonly mayStillRun?: boolean;
      /**
       * The session ended because of its container: it was stopped (or exited), or
       * removed. Such a terminal can't be reopened: CRI never starts an exited container
       * again.
       */
      readonly container?: 'stopped' | 'removed';
    };
