/**
 * Port forwards to pods: the supervisor the app uses. What it reports is plain data
 * (ForwardSnapshot and friends in shared/model/forward.ts), ready for IPC.
 */
export { ForwardSupervisor } from './supervisor';
export { defaultForwardTiming, type ForwardDependencies, type ForwardTiming } from './forward';
export type { ForwardRuntime } from './resolve';
export { addressesBeyondLoopback } from './spec';
export type { Event } from '../emitter';
