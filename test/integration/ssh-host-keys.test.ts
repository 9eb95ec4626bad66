/**
 * Host keys judged as OpenSSH judges them, against real OpenSSH servers, with OpenSSH's
 * own client as the referee: a key of another type (or another ECDSA curve) than the one
 * on record is a changed key, refused at once on the node and on a ProxyJump hop; names
 * that known_hosts would read as patterns never get there; and the `ssh-keygen -R` hint
 * Porthole prints works when pasted into a shell, whatever the file is called.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshNodeConnection, type SshConnectOptions } from '../../electron/core/ssh';
import { AppError } from '../../shared/errors';
import type { HostKeyPrompt, SshTarget } from '../../shared/model';
import { labRuntimes } from '../support/lab';
import { Sshd, generateKey, type KeyPair } from '../support/sshd';

const run = promisify(execFile);
const runtime = labRuntimes()[0]!;

let dir: string;
let key: KeyPair;
let node: Sshd;
let jump: Sshd;
let nodeP384: Sshd;
/** A host key of another type than the servers' (they have Ed25519 and ECDSA P-384). */
let rsa: KeyPair;
let p256: KeyPair;
let configPath: string;

/** ssh-keygen with a chosen type and size (the shared helper picks the size per type). */
async function hostKey(name: string, type: 'rsa' | 'ecdsa', bits: number): Promise<KeyPair> {
  const path = join(dir, name);
  await run('ssh-keygen', ['-q', '-t', type, '-b', String(bits), '-N', '', '-C', name, '-f', path]);
  const publicKey = readFileSync(`${path}.pub`, 'utf8').trim();
  return { privateKeyPath: path, publicKeyPath: `${path}.pub`, publicKey };
}

async function fingerprint(publicKeyPath: string): Promise<string> {
  const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicKeyPath]);
  return stdout.split(' ')[1]!;
}

/** The known_hosts line recording `pair` for a server on `port`. */
function recorded(port: number, pair: KeyPair): string {
  const [type, blob] = pair.publicKey.split(' ');
  return `[127.0.0.1]:${port} ${type} ${blob}`;
}

function knownHosts(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
  return path;
}

function attempt(target: Partial<SshTarget>, knownHostsPath: string) {
  const prompts: HostKeyPrompt[] = [];
  const options: SshConnectOptions = {
    target: { kind: 'ssh', host: 'node', runtimeEndpoint: runtime.endpoint, ...target },
    configPaths: [configPath],
    knownHostsPath,
    globalKnownHostsPaths: [],
    agentSocket: null,
    environment: { homeDir: join(dir, 'home') },
    confirmHostKey: (prompt) => {
      prompts.push(prompt);
      return Promise.resolve(true);
    },
  };
  return { prompts, options };
}

async function connectError(options: SshConnectOptions): Promise<AppError> {
  try {
    const connection = await SshNodeConnection.connect(options);
    connection.dispose();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the connection to fail');
}

/** What OpenSSH's own client says about the server with this known_hosts (never logs in). */
async function openSshVerdict(port: number, knownHostsPath: string): Promise<string> {
  const result = await run('ssh', [
    '-F',
    '/dev/null',
    '-o',
    `UserKnownHostsFile=${knownHostsPath}`,
    '-o',
    'GlobalKnownHostsFile=/dev/null',
    '-o',
    'StrictHostKeyChecking=ask',
    '-o',
    'BatchMode=yes',
    '-o',
    'UpdateHostKeys=no',
    '-i',
    '/dev/null',
    '-p',
    String(port),
    'nobody@127.0.0.1',
    'true',
  ]).then(
    () => ({ stderr: '' }),
    (error: { stderr?: string }) => ({ stderr: error.stderr ?? '' }),
  );
  return result.stderr;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'porthole-ssh-hostkeys-'));
  mkdirSync(join(dir, 'home'));
  key = await generateKey(join(dir, 'id_ed25519'));
  [rsa, p256] = await Promise.all([
    hostKey('rsa_host', 'rsa', 2048),
    hostKey('p256', 'ecdsa', 256),
  ]);
  const p384 = await hostKey('p384_host', 'ecdsa', 384);
  [node, jump, nodeP384] = await Promise.all([
    Sshd.create({ authorizedKeys: [key.publicKey] }),
    Sshd.create({ authorizedKeys: [key.publicKey] }),
    Sshd.create({ authorizedKeys: [key.publicKey], hostKey: p384 }),
  ]);
  configPath = join(dir, 'ssh_config');
  writeFileSync(
    configPath,
    [
      'Host node',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      'Host node-p384',
      '  HostName 127.0.0.1',
      `  Port ${nodeP384.port}`,
      'Host jump',
      '  HostName 127.0.0.1',
      `  Port ${jump.port}`,
      'Host via-jump',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      '  ProxyJump jump',
      'Host injected-alias',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      '  HostKeyAlias github.com,x.evil.example',
      'Host *',
      '  User root',
      `  IdentityFile ${key.privateKeyPath}`,
      '  IdentitiesOnly yes',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await Promise.all([node?.dispose(), jump?.dispose(), nodeP384?.dispose()]);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a host key of another type than the one on record', () => {
  it('is a changed key on the node: refused at once, naming both types and fingerprints', async () => {
    const path = knownHosts('kh_rsa', [recorded(node.port, rsa)]);
    // OpenSSH's verdict on the same file, for the record.
    expect(await openSshVerdict(node.port, path)).toMatch(
      /REMOTE HOST IDENTIFICATION HAS CHANGED[\s\S]*Offending RSA key/,
    );
    const mark = node.log.length;
    const { prompts, options } = attempt({}, path);
    const error = await connectError(options);
    expect(prompts).toEqual([]);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toBe(
      `The host key of [127.0.0.1]:${node.port} has changed (known: ssh-rsa ${await fingerprint(rsa.publicKeyPath)}; offered: ssh-ed25519 ${await fingerprint(node.hostKey.publicKeyPath)}); Porthole refused to connect to node.`,
    );
    expect(error.detail).toBe(`The known key is at line 1 of ${path} (ssh-rsa).`);
    // Nothing was sent to the server beyond the key exchange, and nothing was written.
    expect(node.log.slice(mark)).not.toMatch(/Accepted publickey|Failed publickey/);
    expect(readFileSync(path, 'utf8')).toBe(`${recorded(node.port, rsa)}\n`);
  });

  it('is a changed key when the server offers another ECDSA curve', async () => {
    const path = knownHosts('kh_p256', [recorded(nodeP384.port, p256)]);
    expect(await openSshVerdict(nodeP384.port, path)).toMatch(
      /REMOTE HOST IDENTIFICATION HAS CHANGED[\s\S]*Offending ECDSA key/,
    );
    const { prompts, options } = attempt({ host: 'node-p384' }, path);
    const error = await connectError(options);
    expect(prompts).toEqual([]);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toContain(
      `(known: ecdsa-sha2-nistp256 ${await fingerprint(p256.publicKeyPath)}; offered: ecdsa-sha2-nistp384 ${await fingerprint(nodeP384.hostKey.publicKeyPath)})`,
    );
  });

  it('is a changed key on a ProxyJump hop: refused before the node is contacted', async () => {
    const path = knownHosts('kh_jump_rsa', [node.knownHostsLine, recorded(jump.port, rsa)]);
    const nodeMark = node.log.length;
    const { prompts, options } = attempt({ host: 'via-jump' }, path);
    const error = await connectError(options);
    expect(prompts).toEqual([]);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toBe(
      `The host key of [127.0.0.1]:${jump.port} has changed (known: ssh-rsa ${await fingerprint(rsa.publicKeyPath)}; offered: ssh-ed25519 ${await fingerprint(jump.hostKey.publicKeyPath)}); Porthole refused to connect to jump host jump (on the way to via-jump).`,
    );
    expect(node.log.slice(nodeMark)).not.toMatch(/Connection from|Accepted/);
  });

  it('is still known when the recorded type is among several the server has', async () => {
    // Both the node's key and an unrelated RSA key on record: the node's key matches.
    const path = knownHosts('kh_both', [recorded(node.port, rsa), node.knownHostsLine]);
    const { prompts, options } = attempt({}, path);
    const connection = await SshNodeConnection.connect(options);
    connection.dispose();
    expect(prompts).toEqual([]);
  });
});

describe('known_hosts is written only with host names', () => {
  it('refuses a profile host that known_hosts would read as two patterns, writing nothing', async () => {
    const path = knownHosts('kh_inject', []);
    const { prompts, options } = attempt({ host: 'github.com,x.evil.example' }, path);
    const error = await connectError(options);
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toMatch(/contains ","/);
    expect(prompts).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('refuses a HostKeyAlias from the config that is a pattern list', async () => {
    const path = knownHosts('kh_alias', []);
    const { options } = attempt({ host: 'injected-alias' }, path);
    const error = await connectError(options);
    expect(error.message).toBe(
      'The SSH config gives injected-alias the HostKeyAlias "github.com,x.evil.example", which contains ","; Porthole refused to use it.',
    );
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('writes an accepted key that OpenSSH finds for exactly that host', async () => {
    const path = knownHosts('kh_new', []);
    const { prompts, options } = attempt({}, path);
    const connection = await SshNodeConnection.connect(options);
    connection.dispose();
    expect(prompts).toHaveLength(1);
    const found = await run('ssh-keygen', ['-F', `[127.0.0.1]:${node.port}`, '-f', path]);
    expect(found.stdout).toContain(node.hostKey.publicKey.split(' ')[1]);
    await expect(run('ssh-keygen', ['-F', 'github.com', '-f', path])).rejects.toMatchObject({
      code: 1,
    });
  });
});

describe('the ssh-keygen -R hint', () => {
  it('is shell-quoted: pasted into a shell, it removes exactly the old key', async () => {
    // A file name a shell would split and unquote: a space, a quote, a `$`.
    const awkward = join(dir, "it's a $HOME");
    mkdirSync(awkward);
    const path = join(awkward, 'known hosts');
    const other = `other.example ${rsa.publicKey.split(' ').slice(0, 2).join(' ')}`;
    writeFileSync(path, `${recorded(node.port, rsa)}\n${other}\n`);
    const { options } = attempt({}, path);
    const error = await connectError(options);
    const command = /remove the old key with: (.+)$/.exec(error.hint ?? '')?.[1];
    expect(command).toBe(
      `ssh-keygen -R '[127.0.0.1]:${node.port}' -f '${awkward.replaceAll("'", `'\\''`)}/known hosts'`,
    );
    await run('sh', ['-c', command!]);
    expect(readFileSync(path, 'utf8')).toBe(`${other}\n`);
  });
});
