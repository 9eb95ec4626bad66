export {
  NodeManager,
  discoveredNodeId,
  type NodeClient,
  type NodeManagerOptions,
  toCallOptions,
} from './node-manager';
export { ProfileStore, profilesFileName } from './profile-store';
export {
  sshAddress,
  sshTargetOf,
  type OpenSsh,
  type OpenSshOptions,
  type SshConnection,
} from './ssh';
export {
  PromptBroker,
  defaultPromptTimeoutMs,
  type PromptBrokerOptions,
  type PromptEndReason,
  type PromptOutcome,
  type PromptSubject,
} from './prompts';
export {
  ResourceWatcher,
  defaultWatcherTimings,
  type ResourceWatcherOptions,
  type WatchedClient,
  type WatcherTimings,
} from './resource-watcher';
export { nodeFiles } from './files';
export { NodesServiceImpl } from './service';
export { createEventSource } from './events';
