import type { EventSource, ServiceHandlers } from '../../../shared/contract';
import { DisposableStore, type Disposable } from '../../../shared/lifecycle';
import { SessionRegistry } from '../sessions';
import { StatsHub } from '../stats';
import { TerminalManager } from '../terminals';
import { createEventSource } from './events';
import { ForwardManager } from './forwards';
import { ForwardsServiceImpl, forwardsEventSource } from './forwards-service';
import { LifecycleServiceImpl } from './lifecycle-service';
import { LogsServiceImpl } from './logs-service';
import { NodeManager, type NodeManagerOptions } from './nodes';
import { NodesServiceImpl } from './nodes-service';
import { ResourcesServiceImpl } from './resources-service';
import { SessionsServiceImpl, sessionsEventSource } from './sessions-service';
import { statsEventSource } from './stats-events';
import { TerminalsServiceImpl, terminalEventSource } from './terminals-service';

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
export function createCoreServices(options: NodeManagerOptions): CoreServices {
  // Disposed newest first: the features' sessions before the registry, nodes last.
  const store = new DisposableStore();
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
} from './nodes';
export {
  PromptBroker,
  defaultPromptTimeoutMs,
  type PromptBrokerOptions,
  type PromptOutcome,
  type PromptSubject,
} from './prompts';
export { defaultConfigDir, readJsonFile, writeJsonFileAtomic } from './config';
export { parseRunSpec, type RunPlan } from './spec';
export { defaultWatcherTimings, type WatcherTimings } from './resources';
