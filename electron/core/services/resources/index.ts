export {
  ResourceWatcher,
  defaultWatcherTimings,
  type ResourceWatcherOptions,
  type WatchedClient,
  type WatcherTimings,
} from './watcher';
export { diffById, deepEqual, type ListDelta } from './diff';
