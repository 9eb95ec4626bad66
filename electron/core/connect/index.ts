export {
  discoverEndpoints,
  probeEndpoint,
  type DiscoveryOptions,
  type DiscoveryResult,
} from './discovery';
export { listCandidates } from './candidates';
export { readCrictlConfig, parseCrictlConfig, type CrictlConfig } from './crictl-config';
export { wellKnownEndpoints, defaultCrictlConfigPath } from './well-known';
