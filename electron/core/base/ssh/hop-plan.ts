/**
 * What one hop of a route logs in with, from its resolved ssh_config and the app's own
 * settings: the known_hosts files and host key policy, the keys and agent, keepalives and
 * the connect timeout. Built once per connection and reused by every reconnect.
 */
import type { SshTarget } from '../../../../shared/model';
import { KeyChain, type AskPassphrase } from './auth';
import type { ResolvedHost } from './config';
import { PromptGate, type HopPlan } from './hops';
import { HostKeyChecker, type ConfirmHostKey } from './host-keys';

/** The app's settings that override or complete ssh_config, for every hop. */
export interface HopOptions {
  /** Asked for every host key not in known_hosts (node and jump hosts); true = trust it. */
  readonly confirmHostKey: ConfirmHostKey;
  /** Asked for an encrypted key's passphrase; undefined = cancelled. Without it such keys are skipped. */
  readonly askPassphrase?: AskPassphrase;
  /** The known_hosts to read and append to, for every hop (overrides UserKnownHostsFile). */
  readonly knownHostsPath?: string;
  /** Read-only known_hosts files (overrides GlobalKnownHostsFile). */
  readonly globalKnownHostsPaths?: readonly string[];
  /** The agent's socket; null for none; default IdentityAgent, then SSH_AUTH_SOCK. */
  readonly agentSocket?: string | null;
}

const defaultKeepaliveSeconds = 15;
const defaultKeepaliveCountMax = 3;
const defaultConnectTimeoutSeconds = 20;

export function planHop(
  host: ResolvedHost,
  isNode: boolean,
  node: string,
  target: SshTarget,
  options: HopOptions,
): HopPlan {
  const gate = new PromptGate();
  const knownHosts = {
    user:
      options.knownHostsPath !== undefined ? [options.knownHostsPath] : host.userKnownHostsFiles,
    global: options.globalKnownHostsPaths ?? host.globalKnownHostsFiles,
    hash: host.hashKnownHosts,
    strict: host.strictHostKeyChecking,
  };
  const agentSocket =
    options.agentSocket === null
      ? undefined
      : (options.agentSocket ??
        (host.identityAgent === 'none' ? undefined : host.identityAgent) ??
        process.env.SSH_AUTH_SOCK);
  // The profile's own settings apply to the node; jump hosts follow their config.
  const keepaliveSeconds =
    (isNode ? target.keepaliveIntervalSeconds : undefined) ??
    host.keepaliveIntervalSeconds ??
    defaultKeepaliveSeconds;
  return {
    host,
    context: {
      node,
      user: host.user,
      hostName: host.hostName,
      port: host.port,
      ...(!isNode && { jumpHost: host.alias }),
    },
    hostKeys: new HostKeyChecker(knownHosts, options.confirmHostKey, gate.notify),
    keys: new KeyChain({
      identityFiles: host.identityFiles,
      identityFilesConfigured: host.identityFilesConfigured,
      identitiesOnly: host.identitiesOnly,
      ...(agentSocket !== undefined && agentSocket !== '' && { agentSocket }),
      ...(options.askPassphrase !== undefined && { askPassphrase: options.askPassphrase }),
      onPrompt: gate.notify,
    }),
    gate,
    // 0 turns keepalives off, as ServerAliveInterval 0 does.
    keepaliveIntervalMs: keepaliveSeconds * 1000,
    keepaliveCountMax:
      (isNode ? target.keepaliveCountMax : undefined) ??
      host.keepaliveCountMax ??
      defaultKeepaliveCountMax,
    connectTimeoutMs:
      ((isNode ? target.connectTimeoutSeconds : undefined) ??
        host.connectTimeoutSeconds ??
        defaultConnectTimeoutSeconds) * 1000,
  };
}
