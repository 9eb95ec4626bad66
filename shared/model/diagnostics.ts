import type { EpochMillis } from './common';
import type { Capabilities } from './runtime';
import type { NodeConnectionState, NodeProfile } from './node';

export type AppLogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One entry of Porthole's own log (not a container's: see LogLine). Already redacted. */
export interface AppLogEntry {
  readonly time: EpochMillis;
  readonly level: AppLogLevel;
  /** The part of the core that wrote it: "nodes", "ssh", "rpc"… */
  readonly scope: string;
  readonly message: string;
  /** The cause: an error's code, message and detail (a stack for `error` entries). */
  readonly detail?: string;
}

/** The newest entries of the app log, oldest first. */
export interface AppLogTail {
  readonly entries: readonly AppLogEntry[];
  /** Entries written since the core started that this answer leaves out. */
  readonly omitted: number;
  /** The log file on disk, when there is one. */
  readonly file?: string;
}

/** What a bug report needs to say about one node. Names only: no endpoints, no users. */
export interface DiagnosticsNode {
  readonly name: string;
  readonly kind: NodeProfile['kind'];
  readonly state: NodeConnectionState;
  readonly runtime?: {
    readonly name: string;
    readonly version: string;
    readonly criVersion: string;
  };
  readonly updates?: 'events' | 'polling';
  readonly capabilities?: Capabilities;
}

/** Versions, nodes and capabilities, for a bug report. Holds no secret. */
export interface DiagnosticsReport {
  readonly generatedAt: EpochMillis;
  readonly appVersion: string;
  /** node, v8, and electron/chrome when the core runs in Electron's main process. */
  readonly versions: Readonly<Record<string, string>>;
  readonly platform: string;
  readonly arch: string;
  readonly nodes: readonly DiagnosticsNode[];
  readonly logFile?: string;
}
