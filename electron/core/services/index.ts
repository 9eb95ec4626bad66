import type { EventSource, ServiceHandlers } from '../../../shared/contract';
// DEVELOPMENT SCAFFOLD (removed before landing): services not yet built refuse.
import { fakeEvents, fakeServices } from '../../../shared/contract/testing';
import { DisposableStore, type Disposable } from '../../../shared/lifecycle';
import { SessionRegistry } from '../sessions';
import { createEventSource } from './events';
import { LifecycleServiceImpl } from './lifecycle-service';
import { NodeManager, type NodeManagerOptions } from './nodes';
import { NodesServiceImpl } from './nodes-service';
import { ResourcesServiceImpl } from './resources-service';
import { SessionsServiceImpl, sessionsEventSource } from './sessions-service';

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
  return {
    services: {
      ...fakeServices(),
      nodes: new NodesServiceImpl(nodes),
      resources: new ResourcesServiceImpl(nodes),
      lifecycle: new LifecycleServiceImpl(nodes),
      sessions: new SessionsServiceImpl(sessions),
    },
    events: {
      ...fakeEvents(),
      ...createEventSource(nodes),
      sessions: sessionsEventSource(sessions),
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
