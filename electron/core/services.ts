import type { EventSource, ServiceHandlers } from '../../shared/contract';
import { DisposableStore, type Disposable } from '../../shared/lifecycle';
import { log, RecentLog } from './base/log';
import { DiagnosticsServiceImpl } from './features/diagnostics';
import { ForwardManager, ForwardsServiceImpl, forwardsEventSource } from './features/forwards';
import { LogsServiceImpl } from './features/logs';
import {
  NodeManager,
  NodesServiceImpl,
  createEventSource,
  type NodeManagerOptions,
} from './features/nodes';
import { LifecycleServiceImpl, ResourcesServiceImpl } from './features/resources';
import { SessionRegistry, SessionsServiceImpl, sessionsEventSource } from './features/sessions';
import { StatsHub, statsEventSource } from './features/stats';
import { TerminalManager, TerminalsServiceImpl, terminalEventSource } from './features/terminals';

export interface CoreServicesOptions extends NodeManagerOptions {
  /** The log file the core writes, for Diagnostics to name. */
  readonly logFile?: string;
  /** The app's version, for Diagnostics' report. */
  readonly appVersion?: string;
}

export interface CoreServices extends Disposable {
  readonly services: ServiceHandlers;
  readonly events: EventSource;
  readonly nodes: NodeManager;
  readonly sessions: SessionRegistry;
}

/**
 * The contract's services and events over one NodeManager, whose connection attempts ask
 * the user through `options.prompts` (or a broker of its own).
 */
export function createCoreServices(options: CoreServicesOptions): CoreServices {
  // Disposed newest first: the features' sessions before the registry, nodes last.
  const store = new DisposableStore();
  // Attached first, detached last: what the features log while they shut down is kept.
  const recent = new RecentLog();
  store.add(log.attach(recent));
  const nodes = store.add(new NodeManager(options));
  const sessions = store.add(new SessionRegistry());
  const logs = store.add(new LogsServiceImpl(nodes, sessions));
  const terminals = store.add(new TerminalManager({ nodes, sessions }));
  const stats = store.add(new StatsHub(nodes));
  const forwards = store.add(new ForwardManager({ nodes, sessions, configDir: options.configDir }));
  return {
    services: {
      nodes: new NodesServiceImpl(nodes, forwards),
      resources: new ResourcesServiceImpl(nodes),
      lifecycle: new LifecycleServiceImpl(nodes),
      sessions: new SessionsServiceImpl(sessions),
      logs,
      terminals: new TerminalsServiceImpl(terminals),
      forwards: new ForwardsServiceImpl(forwards),
      diagnostics: new DiagnosticsServiceImpl({
        recent,
        nodes: () => nodes.statuses(),
        ...(options.logFile !== undefined && { logFile: options.logFile }),
        ...(options.appVersion !== undefined && { appVersion: options.appVersion }),
      }),
    },
    events: {
      ...createEventSource(nodes),
      sessions: sessionsEventSource(sessions),
      logs: logs.events,
      terminal: terminalEventSource(terminals),
      stats: statsEventSource(stats),
      forwards: forwardsEventSource(forwards),
    },
    nodes,
    sessions,
    dispose: () => store.dispose(),
  };
}

export {
  NodeManager,
  discoveredNodeId,
  sshTargetOf,
  type NodeClient,
  type NodeManagerOptions,
  type OpenSsh,
  type OpenSshOptions,
  type SshSession,
} from './features/nodes';
export {
  PromptBroker,
  defaultPromptTimeoutMs,
  type PromptBrokerOptions,
  type PromptOutcome,
  type PromptSubject,
} from './features/nodes';
export { defaultConfigDir, readJsonFile, writeJsonFileAtomic } from './base/config';
export { parseRunSpec, type RunPlan } from './features/resources';
export { defaultWatcherTimings, type WatcherTimings } from './features/nodes';
