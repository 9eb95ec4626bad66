export {
  Log,
  defaultLogBudget,
  type LogBudget,
  atLeast,
  describeCause,
  log,
  logLevels,
  logger,
  parseLogLevel,
  type LogSink,
  type Logger,
} from './logger';
export {
  LogFile,
  defaultLogFileKeep,
  defaultLogFileMaxBytes,
  defaultLogFileName,
  type LogFileOptions,
} from './file';
export { RecentLog, defaultRecentLogLimits, type RecentLogLimits } from './recent';
export { redact, redactedMark } from './redact';
