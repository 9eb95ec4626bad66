export {
  CriClient,
  defaultCriTimeoutMs,
  type CriClientOptions,
  type StreamUrl,
  type VerboseOption,
} from './client';
export type { CallOptions } from './channel';
export { CapabilityTracker } from './capabilities';
export type { ContainerEvent, ContainerEventType } from './events';
export { parseEndpoint, type UnixEndpoint } from './endpoint';
export { toCriError } from './errors';
