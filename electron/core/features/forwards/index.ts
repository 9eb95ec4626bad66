/**
 * Port forwards to pods: the supervisor the app uses. What it reports is plain data
 * (ForwardSnapshot and friends in shared/model/forward.ts), ready for IPC.
 */
export { ForwardSupervisor } from './supervisor';
export type { ForwardDependencies } from './forward';
export { defaultForwardTiming, type ForwardTiming } from './timing';
export type { ForwardRuntime } from './resolve';
export { addressesBeyondLoopback } from './spec';
export { ForwardManager, type ForwardManagerOptions } from './manager';
export type { ForwardNodes } from './entry';
export { ForwardStore, forwardsFileName, type SavedForward } from './store';
export { parseForwardOptions, parseForwardSpec } from './schema';
export { defaultForwardName, describeBinding, describeTarget } from './describe';
export { ForwardsServiceImpl, forwardsEventSource } from './service';
