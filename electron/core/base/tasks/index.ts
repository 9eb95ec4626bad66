export { TaskQueue, type TaskQueueOptions } from './queue';
export { ResponsiveClock, responsiveClock, yieldToLoop, type ResponsiveClockOptions } from './loop';
