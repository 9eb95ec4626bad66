import type { ErrorCode } from '../errors';
import type { EpochMillis } from './common';

/**
 * A node reached over SSH (joins `NodeProfile` in ./node beside LocalNodeProfile). Plain
 * data: profiles are stored in settings and cross the IPC boundary, so they hold names and
 * paths, never key material or passphrases. `host` is read the way `ssh host` reads it: an alias from
 * ~/.ssh/config (whose HostName, User, Port, IdentityFile, IdentitiesOnly and ProxyJump
 * apply) or a plain host name. Fields set here win over the config, as ssh's command-line
 * options do.
 */
export interface SshNodeProfile {
  readonly id: string;
  readonly kind: 'ssh';
  /** What the user calls it; also the node's name in messages ("SSH connection to node-1…"). */
  readonly name: string;
  /** An ssh_config alias or a host name / address. */
  readonly host: string;
  readonly user?: string;
  readonly port?: number;
  /** Private key files tried before the config's (like `ssh -i`); `~` is expanded. */
  readonly identityFiles?: readonly string[];
  /** Offer only the identity files, not every key in the agent. */
  readonly identitiesOnly?: boolean;
  /** `[user@]host[:port]` hops, comma-separated; each hop is resolved through the config too. `none` disables the config's. */
  readonly proxyJump?: string;
  /** The runtime socket on the node, e.g. `unix:///run/containerd/containerd.sock`; probed when absent. */
  readonly runtimeEndpoint?: string;
  /** Seconds between SSH keepalives (ServerAliveInterval); default 15. */
  readonly keepaliveIntervalSeconds?: number;
  /** Unanswered keepalives before the connection counts as dropped (ServerAliveCountMax); default 3. */
  readonly keepaliveCountMax?: number;
  /** Bound on TCP connect + handshake + login per hop, excluding time spent in prompts (ConnectTimeout). */
  readonly connectTimeoutSeconds?: number;
  /** Per-call CRI deadline, in milliseconds. */
  readonly timeoutMs?: number;
  /** Connect when Porthole starts. */
  readonly autoConnect?: boolean;
}

/** What opening an SSH connection needs from a profile: no id; the name defaults to `host`. */
export type SshTarget = Omit<SshNodeProfile, 'id' | 'name' | 'timeoutMs' | 'autoConnect'> & {
  readonly name?: string;
};

/** What the user is asked when a host key is not in known_hosts yet. */
export interface HostKeyPrompt {
  /** The name known_hosts uses: the HostKeyAlias or HostName, not the config alias. */
  readonly host: string;
  readonly port: number;
  /** e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`. */
  readonly keyType: string;
  /** `SHA256:` and unpadded base64, as `ssh-keygen -lf` and OpenSSH's prompt print it. */
  readonly fingerprintSha256: string;
}

/** The state of the SSH connection to one node, as the UI shows it. */
export type SshConnectionState =
  | { readonly state: 'connected'; readonly since: EpochMillis }
  | {
      readonly state: 'reconnecting';
      /** Why the connection dropped, in words. */
      readonly reason: string;
      /** 1 for the first retry. */
      readonly attempt: number;
      /** When the next attempt starts (an attempt may already be under way). */
      readonly nextAttemptAt: EpochMillis;
      /** Why the last attempt failed, when one did. */
      readonly lastError?: string;
    }
  | {
      readonly state: 'disconnected';
      readonly reason: string;
      /** Set when the reason is an error (lost and not recovered, refused host key…). */
      readonly errorCode?: ErrorCode;
    };

/** What was found at a candidate runtime socket on a remote node. */
export interface RemoteRuntimeProbe {
  /** `unix:///path` as the node sees it. */
  readonly endpoint: string;
  /** The runtime this path usually belongs to. */
  readonly runtime: string;
  readonly state: 'ready' | 'absent' | 'not-socket' | 'refused' | 'error';
  readonly message?: string;
  readonly hint?: string;
}

/** What every open question names: which node's connection attempt is waiting for it. */
interface PendingPromptBase {
  /** Answer with `nodes.answerPrompt(id, …)`. */
  readonly id: string;
  readonly nodeId: string;
  readonly nodeName: string;
  /** When the question is dropped unanswered (and counts as cancelled). */
  readonly expiresAt: EpochMillis;
}

/** "The authenticity of host … can't be established": trust the key or not. */
export interface PendingHostKeyPrompt extends PendingPromptBase {
  readonly kind: 'host-key';
  readonly hostKey: HostKeyPrompt;
}

/** An encrypted private key needs its passphrase. */
export interface PendingPassphrasePrompt extends PendingPromptBase {
  readonly kind: 'passphrase';
  /** The key file, as the profile or ssh_config names it. */
  readonly keyPath: string;
  /** 1 for the first ask; more means the passphrase given before did not decrypt the key. */
  readonly attempt: number;
}

/**
 * A question a connection attempt is waiting on, as the UI shows it. Plain data with no
 * secrets: the answer (a passphrase) only ever travels the other way.
 */
export type PendingPrompt = PendingHostKeyPrompt | PendingPassphrasePrompt;

/** The user's answer to a PendingPrompt of the same kind. */
export type PromptAnswer =
  | { readonly kind: 'host-key'; readonly trust: boolean }
  | {
      readonly kind: 'passphrase';
      /** Undefined (or absent) cancels: the login stops there. */
      readonly passphrase?: string;
    };
