/** A node's timeline: the flight recorder of every connected node's lifecycle events. */
export { TimelineRecorder, type TimelineNodes, type TimelineRecorderOptions } from './recorder';
export { TimelineFile, timelineFileName } from './file';
export { TimelineServiceImpl } from './service';
export { timelineEventSource } from './events';
