import { createHmac, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkHostKey,
  fingerprintSha256,
  hostFieldMatches,
  keyTypeOf,
  knownHostsLine,
  knownKeyTypes,
  parseKnownHosts,
} from './known-hosts';
import { AppError } from '../../../../shared/errors';
import { hostNameProblem } from './host-name';
import { utils } from './ssh2';

/** A real ed25519 public key blob, as a server sends it. */
function ed25519Blob(): Buffer {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const type = Buffer.from('ssh-ed25519');
  const blob = Buffer.alloc(4 + type.length + 4 + raw.length);
  blob.writeUInt32BE(type.length, 0);
  type.copy(blob, 4);
  blob.writeUInt32BE(raw.length, 4 + type.length);
  raw.copy(blob, 8 + type.length);
  return blob;
}

/** The blob of a `type base64 [comment]` public key line. */
function publicBlob(publicKeyLine: string): Buffer {
  return Buffer.from(publicKeyLine.split(' ')[1]!, 'base64');
}

function line(hosts: string, key: Buffer, marker = ''): string {
  return `${marker ? `${marker} ` : ''}${hosts} ${keyTypeOf(key)} ${key.toString('base64')} comment`;
}

function hashed(name: string, salt = Buffer.from('0123456789abcdefghij')): string {
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

describe('known_hosts host matching', () => {
  it('names port 22 plainly and other ports as [host]:port', () => {
    expect(hostFieldMatches('node-1', 'node-1', 22)).toBe(true);
    expect(hostFieldMatches('node-1', 'node-1', 2222)).toBe(false);
    expect(hostFieldMatches('[node-1]:2222', 'node-1', 2222)).toBe(true);
    expect(hostFieldMatches('[node-1]:2222', 'node-1', 22)).toBe(false);
  });

  it('compares names case-insensitively', () => {
    expect(hostFieldMatches('Node-1.Example.COM', 'node-1.example.com', 22)).toBe(true);
  });

  it('matches comma-separated lists and wildcards', () => {
    expect(hostFieldMatches('a,node-1,10.0.0.1', '10.0.0.1', 22)).toBe(true);
    expect(hostFieldMatches('*.example.com', 'node-1.example.com', 22)).toBe(true);
    expect(hostFieldMatches('node-?', 'node-7', 22)).toBe(true);
    expect(hostFieldMatches('node-?', 'node-17', 22)).toBe(false);
    expect(hostFieldMatches('[*.lab]:*', 'x.lab', 2222)).toBe(true);
  });

  it('lets a negation rule a line out even when another pattern matches', () => {
    expect(hostFieldMatches('*.example.com,!bad.example.com', 'bad.example.com', 22)).toBe(false);
    expect(hostFieldMatches('*.example.com,!bad.example.com', 'ok.example.com', 22)).toBe(true);
    expect(hostFieldMatches('!bad.example.com', 'ok.example.com', 22)).toBe(false);
  });

  it('matches hashed names (HMAC-SHA1 of the name, port included)', () => {
    expect(hostFieldMatches(hashed('node-1'), 'node-1', 22)).toBe(true);
    expect(hostFieldMatches(hashed('node-1'), 'NODE-1', 22)).toBe(true);
    expect(hostFieldMatches(hashed('node-2'), 'node-1', 22)).toBe(false);
    expect(hostFieldMatches(hashed('[127.0.0.1]:2222'), '127.0.0.1', 2222)).toBe(true);
    expect(hostFieldMatches(hashed('127.0.0.1'), '127.0.0.1', 2222)).toBe(false);
  });

  it('does not treat regex characters in patterns specially', () => {
    expect(hostFieldMatches('node.1', 'nodex1', 22)).toBe(false);
    expect(hostFieldMatches('node+1', 'node+1', 22)).toBe(true);
  });
});

describe('known_hosts parsing', () => {
  it('skips comments, blank lines, unknown markers and corrupt lines', () => {
    const key = ed25519Blob();
    const text = [
      '# a comment',
      '',
      line('node-1', key),
      line('node-2', key, '@unknown-marker'),
      'node-3 ssh-ed25519 not*base64',
      `node-4 ssh-rsa ${key.toString('base64')}`, // type disagrees with the blob
      'node-5 1024 35 1234567', // SSH-1
      line('node-6', key, '@revoked'),
      line('*.lab', key, '@cert-authority'),
    ].join('\n');
    const entries = parseKnownHosts(text, '/kh');
    expect(entries.map((e) => [e.line, e.hosts, e.marker])).toEqual([
      [3, 'node-1', undefined],
      [8, 'node-6', 'revoked'],
      [9, '*.lab', 'cert-authority'],
    ]);
    expect(entries[0]!.file).toBe('/kh');
    expect(entries[0]!.key.equals(key)).toBe(true);
  });
});

describe('checking a host key', () => {
  const key = ed25519Blob();
  const other = ed25519Blob();

  it('knows a listed key, plain or hashed', () => {
    for (const hosts of ['[10.0.0.1]:2222', hashed('[10.0.0.1]:2222')]) {
      const entries = parseKnownHosts(line(hosts, key), 'kh');
      expect(checkHostKey(entries, '10.0.0.1', 2222, key).kind).toBe('known');
    }
  });

  it('calls the same key type with another key changed, listing the old entry', () => {
    const entries = parseKnownHosts(line('node-1', other), 'kh');
    const verdict = checkHostKey(entries, 'node-1', 22, key);
    expect(verdict.kind).toBe('changed');
    if (verdict.kind === 'changed') expect(verdict.entries[0]!.key.equals(other)).toBe(true);
  });

  it('calls a key of another type changed too, as OpenSSH does (check_hostkeys_by_key_or_type)', () => {
    // An RSA key on record and an Ed25519 key offered: OpenSSH says "REMOTE HOST
    // IDENTIFICATION HAS CHANGED … Offending RSA key" and refuses, so must we.
    const rsa = publicBlob(utils.generateKeyPairSync('rsa', { bits: 1024 }).public);
    const entries = parseKnownHosts(line('[127.0.0.1]:2222', rsa), 'kh');
    const verdict = checkHostKey(entries, '127.0.0.1', 2222, key);
    expect(verdict.kind).toBe('changed');
    if (verdict.kind === 'changed') {
      expect(verdict.entries.map((entry) => entry.keyType)).toEqual(['ssh-rsa']);
    }
    expect(knownKeyTypes(entries, '127.0.0.1', 2222)).toEqual(['ssh-rsa']);
  });

  it('calls another ECDSA curve changed', () => {
    const p256 = publicBlob(utils.generateKeyPairSync('ecdsa', { bits: 256 }).public);
    const p384 = publicBlob(utils.generateKeyPairSync('ecdsa', { bits: 384 }).public);
    expect(keyTypeOf(p256)).toBe('ecdsa-sha2-nistp256');
    expect(keyTypeOf(p384)).toBe('ecdsa-sha2-nistp384');
    const entries = parseKnownHosts(line('node-1', p256), 'kh');
    expect(checkHostKey(entries, 'node-1', 22, p384).kind).toBe('changed');
    // Every plain key on record is named, hashed entries too.
    const both = parseKnownHosts(
      [line('node-1', p256), line(hashed('node-1'), other)].join('\n'),
      'kh',
    );
    const verdict = checkHostKey(both, 'node-1', 22, p384);
    expect(verdict.kind === 'changed' && verdict.entries.map((entry) => entry.line)).toEqual([
      1, 2,
    ]);
    // One of the recorded keys offered: known, whatever else is on record.
    expect(checkHostKey(both, 'node-1', 22, p256).kind).toBe('known');
  });

  it('calls a host without plain entries unknown', () => {
    expect(checkHostKey([], 'node-1', 22, key)).toEqual({ kind: 'unknown' });
  });

  it('refuses a revoked key even when the same key is also listed as known', () => {
    const entries = parseKnownHosts(
      [line('node-1', key), line('*', key, '@revoked')].join('\n'),
      'kh',
    );
    expect(checkHostKey(entries, 'node-1', 22, key).kind).toBe('revoked');
    // Revocation is per key: another key for the host is unaffected.
    expect(checkHostKey(entries, 'node-1', 22, other).kind).toBe('changed');
  });

  it('never lets a @cert-authority line vouch for (or contradict) a plain key', () => {
    const entries = parseKnownHosts(
      [line('*', key, '@cert-authority'), line('*', other, '@cert-authority')].join('\n'),
      'kh',
    );
    expect(checkHostKey(entries, 'node-1', 22, key)).toEqual({ kind: 'unknown' });
  });

  it('ignores entries for other hosts and negated ones', () => {
    const entries = parseKnownHosts(
      [line('node-2', other), line('node-*,!node-1', other)].join('\n'),
      'kh',
    );
    expect(checkHostKey(entries, 'node-1', 22, key).kind).toBe('unknown');
  });
});

describe('writing known_hosts lines', () => {
  const key = ed25519Blob();

  it('writes a plain line that reads back as known', () => {
    const text = knownHostsLine('Node-1', 2222, key, { hash: false });
    expect(text.startsWith('[node-1]:2222 ssh-ed25519 ')).toBe(true);
    expect(checkHostKey(parseKnownHosts(text, 'kh'), 'node-1', 2222, key).kind).toBe('known');
  });

  it('writes a hashed line that hides the name and reads back as known', () => {
    const text = knownHostsLine('node-1', 22, key, { hash: true });
    expect(text).toMatch(/^\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+ ssh-ed25519 /);
    expect(text).not.toContain('node-1');
    expect(checkHostKey(parseKnownHosts(text, 'kh'), 'node-1', 22, key).kind).toBe('known');
    expect(checkHostKey(parseKnownHosts(text, 'kh'), 'node-2', 22, key).kind).toBe('unknown');
  });
});

describe('no pattern injection into known_hosts', () => {
  const key = ed25519Blob();

  it('refuses to write a name that known_hosts would read as patterns', () => {
    for (const host of [
      'github.com,x.evil.example',
      '*',
      '*.example.com',
      'node-?',
      '!node-1',
      '[node-1]:22',
      '|1|c2FsdA==|aGFzaA==',
      'node 1',
      'node\tx',
      'node#1',
      '@revoked',
      '-oProxyCommand=x',
      '',
      'a'.repeat(254),
    ]) {
      expect(() => knownHostsLine(host, 22, key, { hash: false }), host).toThrow(AppError);
      expect(() => knownHostsLine(host, 2222, key, { hash: true }), host).toThrow(AppError);
    }
    expect(() => knownHostsLine('github.com,x.evil.example', 22, key, { hash: false })).toThrow(
      'Not writing "github.com,x.evil.example" to known_hosts: it contains ",".',
    );
  });

  it('writes names, IPv4 and IPv6 addresses as they are', () => {
    for (const [host, port, written] of [
      ['node-1.example.com', 22, 'node-1.example.com'],
      ['my_alias', 22, 'my_alias'],
      ['10.0.0.1', 2222, '[10.0.0.1]:2222'],
      ['::1', 22, '::1'],
      ['fe80::1%eth0', 2222, '[fe80::1%eth0]:2222'],
    ] as const) {
      const text = knownHostsLine(host, port, key, { hash: false });
      expect(text.split(' ')[0]).toBe(written);
      expect(checkHostKey(parseKnownHosts(text, 'kh'), host, port, key).kind).toBe('known');
    }
  });

  it('says what is wrong with a host name', () => {
    expect(hostNameProblem('node-1')).toBeUndefined();
    expect(hostNameProblem('127.0.0.1')).toBeUndefined();
    expect(hostNameProblem('2001:db8::1')).toBeUndefined();
    expect(hostNameProblem('a,b')).toBe('contains ","');
    expect(hostNameProblem('a b')).toBe('contains a space');
    expect(hostNameProblem('a\u0000b')).toBe('contains U+0000');
    expect(hostNameProblem('[::1]')).toMatch(/brackets/);
    expect(hostNameProblem('-x')).toMatch(/option/);
    expect(hostNameProblem('ex\u00e4mple')).toBe('contains U+00E4');
  });
});

describe('fingerprints', () => {
  it('prints SHA256 like ssh-keygen -l: unpadded base64', () => {
    const key = ed25519Blob();
    const fingerprint = fingerprintSha256(key);
    expect(fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});
