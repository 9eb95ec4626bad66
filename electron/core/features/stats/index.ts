export { CpuTracker, cpuRate, minRateIntervalMs, type CpuRate } from './cpu';
export { SampleHistory } from './history';
export { StatsHub, type StatsNodes } from './hub';
export {
  StatsPoller,
  defaultStatsTimings,
  type StatsClient,
  type StatsPollerOptions,
  type StatsTimings,
} from './poller';
export { statsEventSource } from './events';
