/** Port forwards as the app manages them: saved or not, on any node, each a monitored session. */
export { ForwardManager, type ForwardManagerOptions, type ForwardNodes } from './manager';
export { ForwardStore, forwardsFileName, type SavedForward } from './store';
export { parseForwardOptions, parseForwardSpec } from './schema';
export { defaultForwardName, describeBinding, describeTarget } from './describe';
