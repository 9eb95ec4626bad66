/** Container logs: find the file, read it into an indexed store, follow it, search it. */
export { parseRecordHeader, parseTimestamp } from './cri-format';
export { locateLog, podLogDirectory, type LocateClient, type LogLocation } from './locate';
export { OpenLog, defaultOpenLogTimings, type OpenLogInit, type OpenLogTimings } from './open-log';
export { LogSearcher, defaultSearchLimit, maxSearchLimit } from './search';
export {
  LogStore,
  defaultMaxLogBytes,
  toStreamSelection,
  type LogStoreOptions,
  type StreamSelection,
} from './store';
export { tailStart } from './tail';
export { LogsServiceImpl } from './service';
