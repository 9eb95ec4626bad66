import type { AppErrorData } from '../errors';
import type { EpochMillis } from './common';

/**
 * Every live streaming session Porthole runs (exec, attach, port-forward, log follow, file
 * transfer), as the session monitor shows it. The registry in electron/core/features/sessions owns them; these
 * are its snapshots, plain data for IPC.
 */
export type SessionKind = 'exec' | 'attach' | 'port-forward' | 'logs' | 'transfer';

/** starting → active ⇄ reconnecting → ended | failed; ended and failed are final. */
export type SessionStateName = 'starting' | 'active' | 'reconnecting' | 'ended' | 'failed';

/** How a session reaches the node: a CRI stream transport, or for logs a file read. */
export type SessionTransport = 'spdy' | 'websocket' | 'file' | 'sftp';

/** One try at opening the stream (the fallback from SPDY to WebSocket makes two). */
export interface SessionAttempt {
  readonly transport: SessionTransport;
  readonly outcome: 'ok' | 'refused' | 'failed';
  /** The protocols offered, e.g. v5…v1.channel.k8s.io. */
  readonly protocolsOffered?: readonly string[];
  /** The HTTP status of a refused upgrade. */
  readonly status?: number;
  readonly message?: string;
  readonly durationMs: number;
}

/** What a session is attached to, in words the monitor shows and ids it can link with. */
export interface SessionTarget {
  /** One line: `default/web › nginx`, `default/web :8080`… */
  readonly description: string;
  readonly podSandboxId?: string;
  readonly podName?: string;
  readonly namespace?: string;
  readonly containerId?: string;
  readonly containerName?: string;
}

export interface SessionSnapshot {
  readonly id: string;
  readonly kind: SessionKind;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly target: SessionTarget;
  /**
   * exec: the command; port-forward: e.g. `127.0.0.1:8080 → 80`; logs: the file path;
   * transfer: what moves, e.g. `download /data/big (tar)`.
   */
  readonly detail?: string;
  readonly transport?: SessionTransport;
  /** The negotiated protocol, e.g. `v4.channel.k8s.io` or `portforward.k8s.io`. */
  readonly protocol?: string;
  readonly attempts: readonly SessionAttempt[];
  readonly state: SessionStateName;
  /** One sentence: why the session is in its state (how it ended, what it waits for). */
  readonly stateReason?: string;
  /**
   * One sentence on what the session can't do although it asked for it, because of the
   * transport the user forced (WebSocket v4 can't end piped stdin; SPDY would).
   */
  readonly limitation?: string;
  readonly startedAt: EpochMillis;
  readonly endedAt?: EpochMillis;
  readonly lastActivityAt: EpochMillis;
  /** Bytes from the container or pod to Porthole (output, downloads, log bytes read). */
  readonly bytesIn: number;
  /** Bytes from Porthole to the container or pod (keystrokes, uploads). */
  readonly bytesOut: number;
  /**
   * Bytes per second in and out together, one sample a second for the last minute,
   * oldest first: the monitor's sparkline.
   */
  readonly throughput: readonly number[];
  /** exec: the process's exit code, once known. */
  readonly exitCode?: number;
  readonly error?: AppErrorData;
  /** Whether `sessions.kill` can end it (false once ended). */
  readonly killable: boolean;
}
