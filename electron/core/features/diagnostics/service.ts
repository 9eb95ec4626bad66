import {
  recentLogDefaultCount,
  recentLogMaxCount,
  type ServiceHandler,
} from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import type {
  AppLogTail,
  DiagnosticsNode,
  DiagnosticsReport,
  NodeStatus,
} from '../../../../shared/model';
import type { RecentLog } from '../../base/log';

export interface DiagnosticsOptions {
  /** The recent-entries ring of the core's log. */
  readonly recent: RecentLog;
  /** The nodes as they stand. */
  readonly nodes: () => readonly NodeStatus[];
  /** The log file, when the core writes one. */
  readonly logFile?: string;
  /** The app's version (package.json's); the shell knows it. */
  readonly appVersion?: string;
}

/** What a report says of a node: names and what the runtime said, never where or who. */
export function diagnosticsNode(status: NodeStatus): DiagnosticsNode {
  return {
    name: status.name,
    kind: status.kind,
    state: status.state,
    ...(status.runtime !== undefined && {
      runtime: {
        name: status.runtime.runtimeName,
        version: status.runtime.runtimeVersion,
        criVersion: status.runtime.runtimeApiVersion,
      },
    }),
    ...(status.updates !== undefined && { updates: status.updates }),
    ...(status.capabilities !== undefined && { capabilities: status.capabilities }),
  };
}

/** The versions worth a bug report: Node's and V8's, and Electron's where it runs. */
function runtimeVersions(): Record<string, string> {
  const { node, v8, electron, chrome } = process.versions as NodeJS.ProcessVersions & {
    electron?: string;
    chrome?: string;
  };
  return {
    node,
    v8,
    ...(electron !== undefined && { electron }),
    ...(chrome !== undefined && { chrome }),
  };
}

export class DiagnosticsServiceImpl implements ServiceHandler<'diagnostics'> {
  constructor(private readonly options: DiagnosticsOptions) {}

  recentLog(count: number = recentLogDefaultCount): Promise<AppLogTail> {
    if (!Number.isSafeInteger(count) || count < 1 || count > recentLogMaxCount) {
      return Promise.reject(
        new AppError({
          code: 'invalid-argument',
          message: `Ask for 1 to ${recentLogMaxCount} log entries.`,
        }),
      );
    }
    const tail = this.options.recent.tail(count);
    return Promise.resolve({
      ...tail,
      ...(this.options.logFile !== undefined && { file: this.options.logFile }),
    });
  }

  report(): Promise<DiagnosticsReport> {
    return Promise.resolve({
      generatedAt: Date.now(),
      appVersion: this.options.appVersion ?? 'unknown',
      versions: runtimeVersions(),
      platform: process.platform,
      arch: process.arch,
      nodes: this.options.nodes().map(diagnosticsNode),
      ...(this.options.logFile !== undefined && { logFile: this.options.logFile }),
    });
  }
}
