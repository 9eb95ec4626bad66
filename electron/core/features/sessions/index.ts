/** The session monitor's source: every live streaming session and the recent ended ones. */
export {
  SessionRegistry,
  type SessionEnd,
  type SessionHandle,
  type SessionInit,
  type SessionRegistryOptions,
  type SessionUpdate,
} from './registry';
export { toSessionAttempts } from './attempts';
export { SessionsServiceImpl, sessionsEventSource } from './service';
