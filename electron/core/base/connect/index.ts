export {
  discoverEndpoints,
  probeEndpoint,
  type DiscoveryOptions,
  type DiscoveryResult,
} from './discovery';
export { listCandidates } from './candidates';
export { readCrictlConfig, parseCrictlConfig, type CrictlConfig } from './crictl-config';
export { labStateFile, readLabState, parseLabState, defaultLabDir } from './lab-state';
export { wellKnownEndpoints, defaultCrictlConfigPath } from './well-known';
