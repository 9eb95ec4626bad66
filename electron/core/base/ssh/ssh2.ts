/**
 * ssh2 is CommonJS. Node's ESM loader detects only some of its exports by name (Client and
 * BaseAgent, not OpenSSHAgent or utils), and a bundler may give no `default` at all; taking
 * the module object from either place works under Node, vitest and the Electron bundle.
 */
import * as ssh2Namespace from 'ssh2';

const ssh2 =
  (ssh2Namespace as unknown as { readonly default?: typeof ssh2Namespace }).default ??
  ssh2Namespace;

export const { BaseAgent, Client, OpenSSHAgent, utils } = ssh2;
export type {
  AgentAuthMethod,
  Client as Ssh2Client,
  ClientChannel,
  IdentityCallback,
  ParsedKey,
  SFTPWrapper,
  ServerHostKeyAlgorithm,
  SignCallback,
  SigningRequestOptions,
  Stats,
} from 'ssh2';
