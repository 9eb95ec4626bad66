export {
  NodeManager,
  discoveredNodeId,
  type NodeClient,
  type NodeManagerOptions,
  toCallOptions,
} from './node-manager';
export { ProfileStore, profilesFileName } from './profile-store';
export { sshAddress, sshTargetOf, type OpenSsh, type OpenSshOptions, type SshSession } from './ssh';
