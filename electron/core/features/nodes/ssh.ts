import type { HostKeyPrompt, SshNodeProfile, SshTarget } from '../../../../shared/model';
import type { SshNodeConnection } from '../../base/ssh';

/**
 * The parts of an SshNodeConnection the node manager uses; tests substitute fakes. File
 * access (container logs and their directories, over SFTP) is optional so that in-memory
 * fakes need not have it.
 */
export type SshSession = Pick<
  SshNodeConnection,
  'endpoint' | 'dialer' | 'state' | 'onDidChangeState' | 'runtimeSocketPath' | 'dispose'
> &
  Partial<Pick<SshNodeConnection, 'openRemoteFile' | 'followRemoteFile' | 'makeRemoteDirectory'>>;

/** How an SSH connection attempt reaches the user, and how it is called off. */
export interface OpenSshOptions {
  /** Asked for every host key not in known_hosts; true = trust it. */
  readonly confirmHostKey: (prompt: HostKeyPrompt) => Promise<boolean>;
  /** Asked for an encrypted key's passphrase; undefined = cancelled. */
  readonly askPassphrase: (keyPath: string) => Promise<string | undefined>;
  /** Aborted when the attempt is cancelled, the node disconnected or Porthole stops. */
  readonly signal: AbortSignal;
}

/**
 * Opens the SSH connection for a profile (SshNodeConnection.connect in the app, see
 * composition.ts): resolves once logged in with the CRI bridge socket ready, rejects with
 * an AppError and leaves nothing behind otherwise.
 */
export type OpenSsh = (profile: SshNodeProfile, options: OpenSshOptions) => Promise<SshSession>;

/** What SshNodeConnection.connect needs from a profile. */
export function sshTargetOf(profile: SshNodeProfile): SshTarget {
  // Everything but what only Porthole uses (the id, the CRI deadline, auto-connect).
  const { id: _id, timeoutMs: _timeoutMs, autoConnect: _autoConnect, ...target } = profile;
  return target;
}

/** `ssh://[user@]host[:port]`: where an SSH node is, as its profile says. */
export function sshAddress(profile: SshNodeProfile): string {
  const host = profile.host.includes(':') ? `[${profile.host}]` : profile.host;
  const user = profile.user === undefined ? '' : `${profile.user}@`;
  const port = profile.port === undefined ? '' : `:${profile.port}`;
  return `ssh://${user}${host}${port}`;
}

/**
 * What identifies the connection a profile makes: saving a profile with a different key
 * (another host, user, key, jump host…) drops the open connection; a new name doesn't.
 */
export function sshConnectionKey(profile: SshNodeProfile): string {
  const { name: _name, ...target } = sshTargetOf(profile);
  return JSON.stringify(Object.entries(target).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
