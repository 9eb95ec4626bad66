import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redact } from './redact';

/** Every secret in `text` is gone from `redact(text)`, and the mark stands in its place. */
function expectGone(text: string, ...secrets: string[]): string {
  const out = redact(text);
  for (const secret of secrets) expect(out).not.toContain(secret);
  expect(out).toContain('[redacted');
  return out;
}

describe('redact', () => {
  it('leaves ordinary text alone', () => {
    const text = 'Node lab-2 connected: containerd 2.1.9, CRI v1 (12 pods, 3 images)';
    expect(redact(text)).toBe(text);
  });

  it('removes the single-use token of a CRI stream URL', () => {
    const url = 'http://127.0.0.1:35117/exec/Xb3_kP9q';
    expect(expectGone(`upgrade to ${url} failed`, 'Xb3_kP9q')).toBe(
      'upgrade to http://127.0.0.1:35117/exec/[redacted] failed',
    );
    expectGone('GET /attach/AbCd-123 HTTP/1.1', 'AbCd-123');
    expectGone('https://node:10250/portforward/tok%2Fen', 'tok%2Fen');
  });

  it('removes one-time link tokens and session cookies', () => {
    const token = 'q8Yc2wGJ0mXl6n3uW1aZr7tV5sD4eF9hB-kL_oP2iU0';
    expectGone(`http://127.0.0.1:8080/?token=${token}&x=1`, token);
    expectGone(`Cookie: porthole-8080=${token}; other=1`, token);
    expectGone(`set porthole-8080=${token}`, token);
    expectGone(`__Host-porthole-443=${token}`, token);
    expectGone(`Set-Cookie: a=${token}; HttpOnly`, token);
  });

  it('removes passwords and passphrases in every usual spelling', () => {
    expectGone('{"username":"bob","password":"hunter2"}', 'hunter2');
    expectGone('{"Passphrase" : "s3 cr\\"et"}', 's3 cr');
    expectGone('password=hunter2 user=bob', 'hunter2');
    expectGone('passphrase: correct-horse', 'correct-horse');
    expectGone('client_secret=abc123def', 'abc123def');
    expectGone('API-KEY: 1234abcd', '1234abcd');
    expectGone('ssh://bob:hunter2@node-7:2222/', 'hunter2');
    expect(redact('ssh://bob@node-7:2222/')).toBe('ssh://bob@node-7:2222/');
  });

  it('removes Authorization headers and bearer tokens', () => {
    expectGone('Authorization: Bearer eyJhbGciOi.eyJzdWIi.sig', 'eyJhbGciOi');
    expectGone('sent Bearer abc.def-ghi to the registry', 'abc.def-ghi');
    expectGone('Basic Ym9iOmh1bnRlcjI=', 'Ym9iOmh1bnRlcjI');
  });

  it('removes private key material, PEM and OpenSSH, whole or cut off', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const body = pem.split('\n')[1]!;
    expect(expectGone(`key:\n${pem}done`, body)).toBe('key:\n[redacted private key]\ndone');
    const openssh =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----';
    expectGone(openssh, 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ');
    expectGone('-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA (cut', 'MIIEowIBAAKCAQEA');
    expectGone('PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nAAAAIFd', 'AAAAIFd');
  });

  it('removes hashed known_hosts names', () => {
    const line =
      '|1|JfKTdBh7rNbXkVAQCRp4OQoPfmI=|USECr3SWf1JUPsms5AqfD5QfxkM= ssh-ed25519 AAAAC3Nz';
    const out = expectGone(line, 'JfKTdBh7rNbXkVAQCRp4OQoPfmI=', 'USECr3SWf1JUPsms5AqfD5QfxkM=');
    expect(out).toBe('|1|[redacted] ssh-ed25519 AAAAC3Nz');
  });

  it('cuts huge text before redacting it, and stays fast on hostile input', () => {
    const hostile = `${'-----BEGIN PRIVATE KEY-----'.repeat(2_000)}${'a='.repeat(50_000)}`;
    const started = performance.now();
    const out = redact(hostile);
    expect(out.length).toBeLessThan(17_000);
    expect(redact('x'.repeat(20_000))).toMatch(/^x{16384}… \(3616 more characters cut\)$/);
    // Linear patterns on ≤16 KiB: far below this on any machine (quadratic would be seconds).
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
