/** Debug containers: a toolbox beside a container that has no shell (see manager.ts). */
export { DebugManager, type DebugManagerOptions } from './manager';
export { DebugServiceImpl } from './service';
export { debugLabels, isDebugContainer } from './spec';
