/** Container logs: find the file, read it into an indexed store, follow it, search it. */
export { parseRecordHeader, parseTimestamp } from './cri-format';
export { locateLog, podLogDirectory, type LocateClient, type LogLocation } from './locate';
export { OpenLog, defaultOpenLogTimings, type OpenLogInit, type OpenLogTimings } from './open-log';
export { LogSearcher, defaultSearchLimit, maxSearchLimit } from './search';
export { LogStore, defaultMaxLogBytes, type LogStoreOptions } from './store';
export { toStreamSelection, type StreamSelection } from './selection';
export { tailStart } from './tail';
export { LogsServiceImpl } from './service';
export { MergeIndex, type MergeSource } from './merge';
export { MergedLog, defaultReorderWindowMs, type MergedSelection } from './merged-log';
