/**
 * Host key policy, checked on every hop (jump hosts included) before any login:
 * known → proceed; revoked or changed → refuse with a warning, never connect; unknown →
 * ask the user (never accepted silently) and, on consent, remember the key in known_hosts.
 * A key accepted once is also remembered in memory for this connection's life, so a
 * reconnect works even when known_hosts can't be written.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AppError } from '../../../../shared/errors';
import { shellQuote } from '../../../../shared/shell';
import type { HostKeyPrompt } from '../../../../shared/model';
import type { ServerHostKeyAlgorithm } from './ssh2';
import {
  checkHostKey,
  fingerprintSha256,
  knownHostsLine,
  knownHostsName,
  knownKeyTypes,
  keyTypeOf,
  parseKnownHosts,
  type KnownHostEntry,
} from './known-hosts';

export type ConfirmHostKey = (prompt: HostKeyPrompt) => Promise<boolean>;

export interface HostKeyFiles {
  /** Read and appended to (the first one) — known_hosts of the user. */
  readonly user: readonly string[];
  /** Read only: /etc/ssh/ssh_known_hosts and friends. */
  readonly global: readonly string[];
  /** Write new entries hashed (HashKnownHosts). */
  readonly hash: boolean;
  /** StrictHostKeyChecking yes: refuse unknown keys without asking. */
  readonly strict: boolean;
}

export interface HostKeyTarget {
  /** The node the user knows, for messages. */
  readonly node: string;
  /** The name known_hosts uses (HostKeyAlias or HostName). */
  readonly host: string;
  readonly port: number;
  /** The jump host's alias when this hop is one on the way to `node`. */
  readonly jumpHost?: string;
}

/** Who was not connected to, as the messages say it: the node, or a jump host on its way. */
function whom(target: HostKeyTarget): string {
  return target.jumpHost === undefined
    ? target.node
    : `jump host ${target.jumpHost} (on the way to ${target.node})`;
}

/** ssh2's host key algorithms, most preferred first (its own default order). */
const defaultHostKeyAlgorithms: readonly ServerHostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** An RSA key (type ssh-rsa) is used with the rsa-sha2-* signature algorithms. */
function algorithmsForKeyType(type: string): ServerHostKeyAlgorithm[] {
  if (type === 'ssh-rsa') return ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
  return defaultHostKeyAlgorithms.filter((algorithm) => algorithm === type);
}

export class HostKeyChecker {
  private readonly accepted = new Set<string>();
  /** Problems that did not stop the connection (known_hosts not writable…). */
  readonly warnings: string[] = [];

  constructor(
    private readonly files: HostKeyFiles,
    private readonly confirm: ConfirmHostKey,
    /** Called while the user is asked: connect timeouts must not run meanwhile. */
    private readonly onPrompt: (prompting: boolean) => void = () => {},
  ) {}

  /**
   * Host key algorithms with the types known_hosts has for this host first, as ssh orders
   * them: otherwise a server with an ECDSA key on file but an Ed25519 key preferred would
   * be asked about as if it were new.
   */
  async algorithmsFor(target: HostKeyTarget): Promise<ServerHostKeyAlgorithm[]> {
    const known = knownKeyTypes(await this.entries(), target.host, target.port);
    return [...new Set([...known.flatMap(algorithmsForKeyType), ...defaultHostKeyAlgorithms])];
  }

  /** Resolves when the key may be used; rejects with an AppError otherwise. */
  async verify(target: HostKeyTarget, key: Buffer): Promise<void> {
    const memoryKey = `${knownHostsName(target.host, target.port)} ${key.toString('base64')}`;
    const entries = await this.entries();
    const verdict = checkHostKey(entries, target.host, target.port, key);
    const offered = fingerprintSha256(key);
    const label = knownHostsName(target.host, target.port);
    switch (verdict.kind) {
      case 'known':
        return;
      case 'revoked':
        throw new AppError({
          code: 'permission-denied',
          message: `The host key of ${label} (${offered}) is revoked; Porthole refused to connect to ${whom(target)}.`,
          detail: `Marked @revoked at ${location(verdict.entry)}.`,
          hint: 'The key was revoked on purpose: the host may be compromised or its key replaced. Ask its administrator for the current key.',
        });
      case 'changed': {
        // OpenSSH's words: the known key, by type and fingerprint, and where it is written.
        const known = verdict.entries.map(
          (entry) => `${entry.keyType} ${fingerprintSha256(entry.key)}`,
        );
        const old = verdict.entries[0]!;
        throw new AppError({
          code: 'permission-denied',
          message: `The host key of ${label} has changed (known: ${[...new Set(known)].join(', ')}; offered: ${keyTypeOf(key)} ${offered}); Porthole refused to connect to ${whom(target)}.`,
          detail: `The known ${verdict.entries.length === 1 ? 'key is' : 'keys are'} at ${verdict.entries.map((entry) => `${location(entry)} (${entry.keyType})`).join(', ')}.`,
          hint: `Someone may be intercepting the connection, or the host was reinstalled. Check the offered fingerprint with its administrator (on the host: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub); only if it matches, remove the old key with: ssh-keygen -R ${shellQuote(label)} -f ${shellQuote(old.file)}`,
        });
      }
      case 'unknown':
        break;
    }
    if (this.accepted.has(memoryKey)) return;
    const prompt: HostKeyPrompt = {
      host: target.host,
      port: target.port,
      keyType: keyTypeOf(key),
      fingerprintSha256: offered,
    };
    if (this.files.strict) {
      throw new AppError({
        code: 'permission-denied',
        message: `${label} is not in known_hosts and StrictHostKeyChecking is on; Porthole refused to connect to ${whom(target)}.`,
        detail: `Offered ${prompt.keyType} key ${offered}.`,
        hint: 'Add the host key to known_hosts (after checking its fingerprint), or relax StrictHostKeyChecking for this host.',
      });
    }
    this.onPrompt(true);
    let trusted: boolean;
    try {
      trusted = await this.confirm(prompt);
    } finally {
      this.onPrompt(false);
    }
    if (!trusted) {
      throw new AppError({
        code: 'cancelled',
        message: `The host key of ${label} (${offered}) was not trusted; not connected to ${whom(target)}.`,
      });
    }
    this.accepted.add(memoryKey);
    await this.remember(target, key);
  }

  private async remember(target: HostKeyTarget, key: Buffer): Promise<void> {
    const file = this.files.user[0];
    if (file === undefined) return;
    const line = knownHostsLine(target.host, target.port, key, { hash: this.files.hash });
    try {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      // A missing file is the usual first time; any other trouble fails the append below.
      const existing = await readFile(file, 'utf8').catch(() => '');
      const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
      await appendFile(file, `${separator}${line}\n`, { mode: 0o600 });
    } catch (error) {
      this.warnings.push(
        `The host key of ${knownHostsName(target.host, target.port)} was accepted for this session but could not be saved to ${file}: ${(error as Error).message}`,
      );
    }
  }

  private async entries(): Promise<KnownHostEntry[]> {
    const all: KnownHostEntry[] = [];
    for (const file of [...this.files.user, ...this.files.global]) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        continue; // A missing known_hosts is normal: everything is unknown.
      }
      all.push(...parseKnownHosts(text, file));
    }
    return all;
  }
}

function location(entry: KnownHostEntry): string {
  return `line ${entry.line} of ${entry.file}`;
}
