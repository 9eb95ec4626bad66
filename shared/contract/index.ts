export type * from './services';
export type * from './events';
export type * from './handlers';
export {
  serviceMethods,
  serviceNames,
  eventNames,
  methodArity,
  isEventName,
  isNotification,
  notificationMethods,
  type NotifiedService,
  type ServiceName,
  type MethodName,
  type EventName,
} from './registry';
export { recentLogDefaultCount, recentLogMaxCount } from './services';
