export type * from './services';
export type * from './events';
export type * from './handlers';
export {
  serviceMethods,
  serviceNames,
  eventNames,
  methodArity,
  isEventName,
  type ServiceName,
  type MethodName,
  type EventName,
} from './registry';
export { recentLogDefaultCount, recentLogMaxCount } from './services';
