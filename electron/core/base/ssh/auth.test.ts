import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSshPublicKey } from './auth';
import { utils } from './ssh2';

describe('the public half of an encrypted OpenSSH key', () => {
  it('is read from the unencrypted header, without the passphrase', () => {
    const pair = utils.generateKeyPairSync('ed25519', {
      passphrase: 'secret',
      cipher: 'aes256-ctr',
      rounds: 2,
    });
    expect(utils.parseKey(pair.private)).toBeInstanceOf(Error); // needs the passphrase
    const key = openSshPublicKey(Buffer.from(pair.private));
    expect(key).toBeDefined();
    const expected = utils.parseKey(pair.public);
    if (expected instanceof Error) throw expected;
    expect(key!.equals(expected)).toBe(true);
    expect(key!.isPrivateKey()).toBe(false);
  });

  it('is undefined for anything that is not an openssh-key-v1 file', () => {
    expect(openSshPublicKey(Buffer.from('not a key'))).toBeUndefined();
    const rsaPem = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    expect(openSshPublicKey(Buffer.from(rsaPem))).toBeUndefined();
    expect(
      openSshPublicKey(
        Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----'),
      ),
    ).toBeUndefined();
  });
});
