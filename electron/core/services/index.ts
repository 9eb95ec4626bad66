import type { EventSource, ServiceHandlers } from '../../../shared/contract';
import type { Disposable } from '../../../shared/lifecycle';
import { createEventSource } from './events';
import { LifecycleServiceImpl } from './lifecycle-service';
import { NodeManager, type NodeManagerOptions } from './nodes';
import { NodesServiceImpl } from './nodes-service';
import { ResourcesServiceImpl } from './resources-service';

export interface CoreServices extends Disposable {
  readonly services: ServiceHandlers;
  readonly events: EventSource;
  readonly nodes: NodeManager;
}

/**
 * The contract's services and events over one NodeManager, whose connection attempts ask
 * the user through `options.prompts` (or a broker of its own).
 */
export function createCoreServices(options: NodeManagerOptions): CoreServices {
  const nodes = new NodeManager(options);
  return {
    services: {
      nodes: new NodesServiceImpl(nodes),
      resources: new ResourcesServiceImpl(nodes),
      lifecycle: new LifecycleServiceImpl(nodes),
    },
    events: createEventSource(nodes),
    nodes,
    dispose: () => nodes.dispose(),
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
