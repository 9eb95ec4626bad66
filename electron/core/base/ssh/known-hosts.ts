/**
 * OpenSSH's known_hosts format, read and written the way ssh(1) does (sshd(8) "SSH_KNOWN_HOSTS
 * FILE FORMAT"): optional marker, host patterns, key type, base64 key, comment.
 *
 * - Hosts on port 22 are named `host`; on any other port `[host]:port`. Names compare
 *   case-insensitively.
 * - Patterns: a comma-separated list with `*` and `?` wildcards; `!pattern` negates, and a
 *   matching negation rules the whole line out even when another pattern matches.
 * - Hashed hosts (`HashKnownHosts yes`): `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`.
 * - `@revoked`: that key must never be accepted for the hosts the line names.
 * - `@cert-authority`: the key signs host certificates. Porthole does not verify host
 *   certificates, so these lines never vouch for a plain host key (a host that only has a
 *   CA line counts as unknown, and its key is asked about). They are never "changed" either.
 *
 * No library does hashed entries and markers together, hence this small module.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../../../shared/errors';
import { hostNameHint, hostNameProblem } from './host-name';

export type KnownHostMarker = 'cert-authority' | 'revoked';

export interface KnownHostEntry {
  /** Where the line is, for messages ("line 3 of /root/.ssh/known_hosts"). */
  readonly file: string;
  readonly line: number;
  readonly marker?: KnownHostMarker;
  /** The host field as written: patterns or one hashed name. */
  readonly hosts: string;
  readonly keyType: string;
  /** The key blob (SSH wire format), decoded from base64. */
  readonly key: Buffer;
}

/** Parses known_hosts text; lines that are not valid entries are skipped, as ssh does. */
export function parseKnownHosts(text: string, file: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const trimmed = lines[index]!.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const fields = trimmed.split(/\s+/);
    let marker: KnownHostMarker | undefined;
    if (fields[0]!.startsWith('@')) {
      const name = fields.shift()!;
      if (name === '@revoked') marker = 'revoked';
      else if (name === '@cert-authority') marker = 'cert-authority';
      else continue; // An unknown marker: ssh ignores the line, so do we.
    }
    const [hosts, keyType, keyText] = fields;
    if (hosts === undefined || keyType === undefined || keyText === undefined) continue;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(keyText)) continue; // e.g. an SSH-1 RSA line.
    const key = Buffer.from(keyText, 'base64');
    // The blob starts with its own type; a line whose two disagree is corrupt.
    if (keyTypeOf(key) !== keyType) continue;
    entries.push({ file, line: index + 1, ...(marker && { marker }), hosts, keyType, key });
  }
  return entries;
}

/** The name known_hosts uses for a host and port. */
export function knownHostsName(host: string, port: number): string {
  const name = host.toLowerCase();
  return port === 22 ? name : `[${name}]:${port}`;
}

/** Whether an entry's host field names `host:port`. */
export function hostFieldMatches(hosts: string, host: string, port: number): boolean {
  const name = knownHostsName(host, port);
  if (hosts.startsWith('|1|')) return hashedNameMatches(hosts, name);
  let matched = false;
  for (const raw of hosts.split(',')) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).toLowerCase();
    if (pattern === '' || !wildcardMatches(pattern, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

function hashedNameMatches(field: string, name: string): boolean {
  const [, , saltText, hashText] = field.split('|');
  if (saltText === undefined || hashText === undefined) return false;
  const salt = Buffer.from(saltText, 'base64');
  const expected = Buffer.from(hashText, 'base64');
  const actual = createHmac('sha1', salt).update(name).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** `*` matches any run of characters, `?` exactly one; everything else literally. */
export function wildcardMatches(pattern: string, text: string): boolean {
  const source = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's').test(text);
}

export type HostKeyVerdict =
  | { readonly kind: 'known'; readonly entry: KnownHostEntry }
  | { readonly kind: 'revoked'; readonly entry: KnownHostEntry }
  | {
      readonly kind: 'changed';
      /** Every plain entry for this host, of any key type: none of them is the offered key. */
      readonly entries: readonly KnownHostEntry[];
    }
  | { readonly kind: 'unknown' };

/**
 * What known_hosts says about the key a server offered, judged as OpenSSH's
 * check_hostkeys_by_key_or_type does for a plain key: a revoked key is refused whatever
 * else is listed; the same key is known; any other plain key on record for the host, of
 * whatever type (RSA against Ed25519, one ECDSA curve against another), means the key
 * changed; only a host with no plain entry at all is new. Were another type "new", a man
 * in the middle would only have to offer a different key type to turn a refusal into a
 * "trust this host?" click.
 */
export function checkHostKey(
  entries: readonly KnownHostEntry[],
  host: string,
  port: number,
  key: Buffer,
): HostKeyVerdict {
  const forHost = entries.filter((entry) => hostFieldMatches(entry.hosts, host, port));
  const revoked = forHost.find((entry) => entry.marker === 'revoked' && entry.key.equals(key));
  if (revoked !== undefined) return { kind: 'revoked', entry: revoked };
  const plain = forHost.filter((entry) => entry.marker === undefined);
  const same = plain.find((entry) => entry.key.equals(key));
  if (same !== undefined) return { kind: 'known', entry: same };
  if (plain.length > 0) return { kind: 'changed', entries: plain };
  return { kind: 'unknown' };
}

/** Key types known_hosts lists for a host (plain entries), to prefer them in negotiation. */
export function knownKeyTypes(
  entries: readonly KnownHostEntry[],
  host: string,
  port: number,
): string[] {
  const types = entries
    .filter((entry) => entry.marker === undefined && hostFieldMatches(entry.hosts, host, port))
    .map((entry) => entry.keyType);
  return [...new Set(types)];
}

/**
 * The line to append when the user accepts a key. Hashed when `hash` is set (ssh's
 * HashKnownHosts): the file then no longer lists which hosts the user reaches. known_hosts
 * has no way to escape a pattern character, so a name that is not a plain host name
 * (see host-name.ts) is refused here too, whoever checked it before.
 */
export function knownHostsLine(
  host: string,
  port: number,
  key: Buffer,
  options: { hash: boolean },
): string {
  const problem = hostNameProblem(host);
  if (problem !== undefined) {
    throw new AppError({
      code: 'invalid-argument',
      message: `Not writing "${host}" to known_hosts: it ${problem}.`,
      hint: hostNameHint,
    });
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new AppError({ code: 'invalid-argument', message: `${port} is not a port.` });
  }
  const name = knownHostsName(host, port);
  let field = name;
  if (options.hash) {
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update(name).digest();
    field = `|1|${salt.toString('base64')}|${hash.toString('base64')}`;
  }
  const type = keyTypeOf(key);
  if (!/^[A-Za-z0-9@._-]+$/.test(type)) {
    throw new AppError({ code: 'invalid-argument', message: 'The host key is malformed.' });
  }
  return `${field} ${type} ${key.toString('base64')}`;
}

/** `SHA256:` + unpadded base64 of the key blob's SHA-256, as OpenSSH prints fingerprints. */
export function fingerprintSha256(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The type name a key blob starts with (an SSH string), or '' if the blob is malformed. */
export function keyTypeOf(key: Buffer): string {
  if (key.length < 4) return '';
  const length = key.readUInt32BE(0);
  if (length === 0 || length > 64 || key.length < 4 + length) return '';
  return key.toString('latin1', 4, 4 + length);
}
