/**
 * Remote nodes over SSH: one connection per node carrying CRI calls (a private unix socket
 * bridged to the runtime socket on the node), stream URLs (a Dialer) and log files (SFTP).
 */
export { SshNodeConnection, type SshConnectOptions } from './node-connection';
export type { AskPassphrase } from './auth';
export type { ConfirmHostKey } from './host-keys';
export { backoffDelay, type BackoffOptions } from './backoff';
export type { ChunkHandler, FollowOptions, RemoteFile, RemoteFileStat } from './remote-files';
export {
  defaultConfigPaths,
  loadSshConfig,
  resolveHost,
  resolveRoute,
  type HostRequest,
  type LoadedSshConfig,
  type ResolvedHost,
  type SshEnvironment,
} from './config';
export {
  checkHostKey,
  fingerprintSha256,
  knownHostsLine,
  parseKnownHosts,
  type HostKeyVerdict,
  type KnownHostEntry,
} from './known-hosts';
export { hostNameHint, hostNameProblem, maxHostNameLength } from './host-name';
