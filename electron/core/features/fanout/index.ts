/** Run on many: one command on many containers across the connected nodes. */
export { FanoutManager, type FanoutManagerOptions } from './manager';
export { FanoutServiceImpl } from './service';
export { fanoutEventSource } from './events';
export { chooseMethod } from './method';
export { compileNamePattern } from './selector';
