/**
 * Who Porthole trusts and how it logs in, against real OpenSSH servers: host keys checked
 * against known_hosts as OpenSSH checks them, with OpenSSH's own client as the referee
 * (unknown → asked, declined → nothing sent; changed — a key of another type or ECDSA
 * curve included — and revoked → refused with a warning, never asked), on every hop of a
 * ProxyJump; only host names written to known_hosts, and a `ssh-keygen -R` hint that works
 * pasted into a shell; logins with key files, passphrases (asked only when needed) and
 * ssh-agent; failures in plain words; the runtime socket probed on the node without a shell.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wellKnownEndpoints } from '../../electron/core/base/connect';
import { CriClient } from '../../electron/core/base/cri';
import { SshNodeConnection, type SshConnectOptions } from '../../electron/core/base/ssh';
import { AppError } from '../../shared/errors';
import type { HostKeyPrompt, SshTarget } from '../../shared/model';
import { labRuntimes } from '../support/lab';
import { Sshd, generateKey, startAgent, type KeyPair } from '../support/sshd';

const run = promisify(execFile);
const runtime = labRuntimes()[0]!;

let dir: string;
let key: KeyPair;
let stranger: KeyPair;
let locked: KeyPair;
let lockedStranger: KeyPair;
let node: Sshd;
let jump: Sshd;
let configPath: string;

const passphrase = 'correct horse battery staple';

/** What `ssh-keygen -lf` prints for a public key: the fingerprint users compare. */
async function keygenFingerprint(publicKeyPath: string): Promise<string> {
  const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicKeyPath]);
  return stdout.split(' ')[1]!;
}

function knownHosts(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
  return path;
}

interface Attempt {
  readonly prompts: HostKeyPrompt[];
  readonly options: SshConnectOptions;
}

function attempt(
  overrides: Omit<Partial<SshConnectOptions>, 'target'> & { target?: Partial<SshTarget> } = {},
  answer = true,
): Attempt {
  const prompts: HostKeyPrompt[] = [];
  const { target, ...rest } = overrides;
  return {
    prompts,
    options: {
      target: { kind: 'ssh', host: 'node', runtimeEndpoint: runtime.endpoint, ...target },
      configPaths: [configPath],
      knownHostsPath: join(dir, 'unused_known_hosts'),
      globalKnownHostsPaths: [],
      agentSocket: null,
      environment: { homeDir: join(dir, 'home') },
      confirmHostKey: (prompt) => {
        prompts.push(prompt);
        return Promise.resolve(answer);
      },
      ...rest,
    },
  };
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

/** sshd's log lines since `mark`: proof of what did (not) reach the server. */
function logSince(server: Sshd, mark: number): string {
  return server.log.slice(mark);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'porthole-ssh-auth-'));
  mkdirSync(join(dir, 'home'));
  key = await generateKey(join(dir, 'id_ed25519'));
  stranger = await generateKey(join(dir, 'id_stranger'));
  locked = await generateKey(join(dir, 'id_locked'), { passphrase });
  lockedStranger = await generateKey(join(dir, 'id_locked_stranger'), { passphrase });
  // The .pub is what lets Porthole ask the server before the passphrase; this key must
  // also work without it (read from the key file's header).
  rmSync(locked.publicKeyPath);
  const authorized = [key.publicKey, locked.publicKey];
  [node, jump] = await Promise.all([
    Sshd.create({ authorizedKeys: authorized }),
    Sshd.create({ authorizedKeys: authorized }),
  ]);
  configPath = join(dir, 'ssh_config');
  writeFileSync(
    configPath,
    [
      'Host node',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      'Host jump',
      '  HostName 127.0.0.1',
      `  Port ${jump.port}`,
      'Host via-jump',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      '  ProxyJump jump',
      'Host via-two-jumps',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      // The same jump host twice: the second hop is a login carried by the first's channel.
      '  ProxyJump jump,root@jump',
      'Host hashing',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      '  HashKnownHosts yes',
      'Host injected-alias',
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      '  HostKeyAlias github.com,x.evil.example',
      'Host *',
      '  User root',
      `  IdentityFile ${key.privateKeyPath}`,
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await Promise.all([node?.dispose(), jump?.dispose()]);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('host keys', () => {
  it('asks about an unknown key, saves it on consent, and does not ask again', async () => {
    const path = knownHosts('kh_unknown', []);
    const first = attempt({ knownHostsPath: path });
    const connection = await SshNodeConnection.connect(first.options);
    connection.dispose();
    expect(first.prompts).toEqual([
      {
        host: '127.0.0.1',
        port: node.port,
        keyType: 'ssh-ed25519',
        fingerprintSha256: await keygenFingerprint(node.hostKey.publicKeyPath),
      },
    ]);
    expect(readFileSync(path, 'utf8')).toBe(`${node.knownHostsLine}\n`);

    const second = attempt({ knownHostsPath: path });
    (await SshNodeConnection.connect(second.options)).dispose();
    expect(second.prompts).toEqual([]);
  });

  it('saves hashed entries where HashKnownHosts is set, and reads them back', async () => {
    const path = knownHosts('kh_hashed', ['# existing comment without newline']);
    writeFileSync(path, '# existing comment without newline');
    const first = attempt({ knownHostsPath: path, target: { host: 'hashing' } });
    (await SshNodeConnection.connect(first.options)).dispose();
    expect(first.prompts).toHaveLength(1);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[0]).toBe('# existing comment without newline');
    expect(lines[1]).toMatch(/^\|1\|[^|]+\|[^ ]+ ssh-ed25519 AAAA/);
    expect(lines[1]).not.toContain('127.0.0.1');
    const second = attempt({ knownHostsPath: path, target: { host: 'hashing' } });
    (await SshNodeConnection.connect(second.options)).dispose();
    expect(second.prompts).toEqual([]);
  });

  it('does not log in when the user declines an unknown key', async () => {
    const path = knownHosts('kh_declined', []);
    const mark = node.log.length;
    const declined = attempt({ knownHostsPath: path }, false);
    const error = await connectError(declined.options);
    expect(declined.prompts).toHaveLength(1);
    expect(error).toMatchObject({ code: 'cancelled' });
    expect(error.message).toBe(
      `The host key of [127.0.0.1]:${node.port} (${declined.prompts[0]!.fingerprintSha256}) was not trusted; not connected to node.`,
    );
    expect(readFileSync(path, 'utf8')).toBe('');
    // The key exchange stopped before any login was attempted.
    expect(logSince(node, mark)).not.toMatch(/Accepted publickey|Failed publickey/);
  });

  it('refuses a changed key without asking, naming both fingerprints', async () => {
    const impostor = await generateKey(join(dir, 'impostor'));
    const [type, blob] = impostor.publicKey.split(' ');
    const path = knownHosts('kh_changed', [`[127.0.0.1]:${node.port} ${type} ${blob}`]);
    const mark = node.log.length;
    const changed = attempt({ knownHostsPath: path });
    const error = await connectError(changed.options);
    expect(changed.prompts).toEqual([]);
    const known = await keygenFingerprint(impostor.publicKeyPath);
    const offered = await keygenFingerprint(node.hostKey.publicKeyPath);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toBe(
      `The host key of [127.0.0.1]:${node.port} has changed (known: ssh-ed25519 ${known}; offered: ssh-ed25519 ${offered}); Porthole refused to connect to node.`,
    );
    expect(error.detail).toBe(`The known key is at line 1 of ${path} (ssh-ed25519).`);
    expect(error.hint).toMatch(/intercepting.*reinstalled.*ssh-keygen -R/);
    expect(logSince(node, mark)).not.toMatch(/Accepted publickey|Failed publickey/);
  });

  it('refuses a revoked key, even when it is also listed as known', async () => {
    const [type, blob] = node.hostKey.publicKey.split(' ');
    const path = knownHosts('kh_revoked', [node.knownHostsLine, `@revoked * ${type} ${blob}`]);
    const revoked = attempt({ knownHostsPath: path });
    const error = await connectError(revoked.options);
    expect(revoked.prompts).toEqual([]);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toMatch(
      /^The host key of \[127\.0\.0\.1\]:\d+ \(SHA256:.+\) is revoked;/,
    );
    expect(error.detail).toBe(`Marked @revoked at line 2 of ${path}.`);
  });
});

/** The known_hosts line recording `pair` for a server on `port`. */
function recorded(port: number, pair: KeyPair): string {
  const [type, blob] = pair.publicKey.split(' ');
  return `[127.0.0.1]:${port} ${type} ${blob}`;
}

/** What OpenSSH's own client says about a server, given this known_hosts (it never logs in). */
async function openSshVerdict(port: number, knownHostsPath: string): Promise<string> {
  const options = [
    `UserKnownHostsFile=${knownHostsPath}`,
    'GlobalKnownHostsFile=/dev/null',
    'StrictHostKeyChecking=ask',
    'BatchMode=yes',
    'UpdateHostKeys=no',
  ].flatMap((option) => ['-o', option]);
  const args = ['-F', '/dev/null', ...options, '-i', '/dev/null', '-p', String(port)];
  return run('ssh', [...args, 'nobody@127.0.0.1', 'true']).then(
    () => '',
    (error: { stderr?: string }) => error.stderr ?? '',
  );
}

describe('a host key of another type than the one on record', () => {
  let rsa: KeyPair;
  beforeAll(async () => {
    rsa = await generateKey(join(dir, 'recorded_rsa'), { type: 'rsa' });
  });

  it('is a changed key on the node: refused at once, naming both types and fingerprints', async () => {
    const path = knownHosts('kh_rsa', [recorded(node.port, rsa)]);
    // OpenSSH's verdict on the same file: check_hostkeys_by_key_or_type.
    expect(await openSshVerdict(node.port, path)).toMatch(
      /REMOTE HOST IDENTIFICATION HAS CHANGED[\s\S]*Offending RSA key/,
    );
    const mark = node.log.length;
    const changed = attempt({ knownHostsPath: path });
    const error = await connectError(changed.options);
    expect(changed.prompts).toEqual([]);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toBe(
      `The host key of [127.0.0.1]:${node.port} has changed (known: ssh-rsa ${await keygenFingerprint(rsa.publicKeyPath)}; offered: ssh-ed25519 ${await keygenFingerprint(node.hostKey.publicKeyPath)}); Porthole refused to connect to node.`,
    );
    expect(error.detail).toBe(`The known key is at line 1 of ${path} (ssh-rsa).`);
    // Nothing was sent beyond the key exchange, and known_hosts is as it was.
    expect(logSince(node, mark)).not.toMatch(/Accepted publickey|Failed publickey/);
    expect(readFileSync(path, 'utf8')).toBe(`${recorded(node.port, rsa)}\n`);
  });

  it('is a changed key when the server offers another ECDSA curve', async () => {
    const p256 = await generateKey(join(dir, 'recorded_p256'), { type: 'ecdsa', bits: 256 });
    const p384 = await generateKey(join(dir, 'host_p384'), { type: 'ecdsa', bits: 384 });
    const server = await Sshd.create({ authorizedKeys: [key.publicKey], hostKey: p384 });
    try {
      const path = knownHosts('kh_p256', [recorded(server.port, p256)]);
      expect(await openSshVerdict(server.port, path)).toMatch(
        /REMOTE HOST IDENTIFICATION HAS CHANGED[\s\S]*Offending ECDSA key/,
      );
      const changed = attempt({
        knownHostsPath: path,
        target: { host: '127.0.0.1', port: server.port },
      });
      const error = await connectError(changed.options);
      expect(changed.prompts).toEqual([]);
      expect(error.code).toBe('permission-denied');
      expect(error.message).toContain(
        `(known: ecdsa-sha2-nistp256 ${await keygenFingerprint(p256.publicKeyPath)}; offered: ecdsa-sha2-nistp384 ${await keygenFingerprint(p384.publicKeyPath)})`,
      );
    } finally {
      await server.dispose();
    }
  });

  it('is a changed key on a ProxyJump hop: refused before the node is contacted', async () => {
    const path = knownHosts('kh_jump_rsa', [node.knownHostsLine, recorded(jump.port, rsa)]);
    const nodeMark = node.log.length;
    const viaJump = attempt({ knownHostsPath: path, target: { host: 'via-jump' } });
    const error = await connectError(viaJump.options);
    expect(viaJump.prompts).toEqual([]);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toBe(
      `The host key of [127.0.0.1]:${jump.port} has changed (known: ssh-rsa ${await keygenFingerprint(rsa.publicKeyPath)}; offered: ssh-ed25519 ${await keygenFingerprint(jump.hostKey.publicKeyPath)}); Porthole refused to connect to jump host jump (on the way to via-jump).`,
    );
    expect(logSince(node, nodeMark)).not.toMatch(/Connection from|Accepted/);
  });

  it('is known when one of the keys on record is the offered one', async () => {
    const path = knownHosts('kh_both', [recorded(node.port, rsa), node.knownHostsLine]);
    const both = attempt({ knownHostsPath: path });
    const connection = await SshNodeConnection.connect(both.options);
    connection.dispose();
    expect(both.prompts).toEqual([]);
  });

  it('comes with a ssh-keygen -R hint that, pasted into a shell, removes exactly the old key', async () => {
    // A file name a shell would split and unquote: a space, a quote, a `$`.
    const awkward = join(dir, "it's a $HOME");
    mkdirSync(awkward);
    const path = join(awkward, 'known hosts');
    const other = `other.example ${rsa.publicKey.split(' ').slice(0, 2).join(' ')}`;
    writeFileSync(path, `${recorded(node.port, rsa)}\n${other}\n`);
    const error = await connectError(attempt({ knownHostsPath: path }).options);
    const command = /remove the old key with: (.+)$/.exec(error.hint ?? '')?.[1];
    expect(command).toBe(
      `ssh-keygen -R '[127.0.0.1]:${node.port}' -f '${awkward.replaceAll("'", "'\\''")}/known hosts'`,
    );
    await run('sh', ['-c', command!]);
    expect(readFileSync(path, 'utf8')).toBe(`${other}\n`);
  });
});

describe('known_hosts is written only with host names', () => {
  it('refuses a profile host that known_hosts would read as two patterns, writing nothing', async () => {
    const path = knownHosts('kh_inject', []);
    const injected = attempt({
      knownHostsPath: path,
      target: { host: 'github.com,x.evil.example' },
    });
    const error = await connectError(injected.options);
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toMatch(/contains ","/);
    expect(injected.prompts).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('refuses a HostKeyAlias from the config that is a pattern list', async () => {
    const path = knownHosts('kh_alias', []);
    const error = await connectError(
      attempt({ knownHostsPath: path, target: { host: 'injected-alias' } }).options,
    );
    expect(error.message).toBe(
      'The SSH config gives injected-alias the HostKeyAlias "github.com,x.evil.example", which contains ","; Porthole refused to use it.',
    );
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('writes an accepted key that OpenSSH finds for exactly that host', async () => {
    const path = knownHosts('kh_new', []);
    const accepted = attempt({ knownHostsPath: path });
    const connection = await SshNodeConnection.connect(accepted.options);
    connection.dispose();
    expect(accepted.prompts).toHaveLength(1);
    const found = await run('ssh-keygen', ['-F', `[127.0.0.1]:${node.port}`, '-f', path]);
    expect(found.stdout).toContain(node.hostKey.publicKey.split(' ')[1]);
    await expect(run('ssh-keygen', ['-F', 'github.com', '-f', path])).rejects.toMatchObject({
      code: 1,
    });
  });
});

describe('logging in', () => {
  let knownHostsPath: string;
  beforeAll(() => {
    knownHostsPath = knownHosts('kh_login', [node.knownHostsLine, jump.knownHostsLine]);
  });

  it('says in plain words that a key was not accepted, without key material', async () => {
    const { options } = attempt({
      knownHostsPath,
      target: { identityFiles: [stranger.privateKeyPath], identitiesOnly: true },
    });
    // The profile's file comes first; the config's key would work, so keep only the stranger.
    writeFileSync(
      join(dir, 'config_stranger'),
      `Host node\n  HostName 127.0.0.1\n  Port ${node.port}\n  User root\n`,
    );
    const error = await connectError({ ...options, configPaths: [join(dir, 'config_stranger')] });
    expect(error.code).toBe('unauthenticated');
    expect(error.message).toBe(
      `node (root@127.0.0.1:${node.port}) did not accept the login as root: none of the offered keys is authorized.`,
    );
    expect(error.detail).toMatch(
      new RegExp(`^Offered: ${stranger.privateKeyPath} \\(ssh-ed25519 SHA256:`),
    );
    const everything = JSON.stringify(error.toJSON());
    expect(everything).not.toMatch(/PRIVATE KEY|AAAAC3/);
    expect(everything).not.toContain(readFileSync(stranger.privateKeyPath, 'utf8').split('\n')[1]!);
  });

  it('asks for a passphrase only for a key the server accepts, once per connection', async () => {
    const asked: string[] = [];
    const { options } = attempt({
      knownHostsPath,
      target: { identityFiles: [locked.privateKeyPath] },
      askPassphrase: (path) => {
        asked.push(path);
        return Promise.resolve(passphrase);
      },
    });
    writeFileSync(
      join(dir, 'config_plain'),
      `Host node\n  HostName 127.0.0.1\n  Port ${node.port}\n  User root\n`,
    );
    const connection = await SshNodeConnection.connect({
      ...options,
      configPaths: [join(dir, 'config_plain')],
    });
    try {
      expect(asked).toEqual([locked.privateKeyPath]);
      // A reconnect signs with the key kept in memory: no second prompt.
      node.kill();
      await node.start();
      await expect.poll(() => connection.state.state, { timeout: 10_000 }).toBe('connected');
      expect(asked).toEqual([locked.privateKeyPath]);
    } finally {
      connection.dispose();
    }

    // Never asked for an encrypted key the server does not accept: ssh2 asks the server
    // about its public half first, and the login goes on with the next key.
    const unasked: string[] = [];
    const second = attempt({
      knownHostsPath,
      target: { identityFiles: [lockedStranger.privateKeyPath, key.privateKeyPath] },
      askPassphrase: (path) => {
        unasked.push(path);
        return Promise.resolve(passphrase);
      },
    });
    (
      await SshNodeConnection.connect({
        ...second.options,
        configPaths: [join(dir, 'config_plain')],
      })
    ).dispose();
    expect(unasked).toEqual([]);
  });

  it('stops with a clear error when the passphrase prompt is cancelled, and retries a wrong one', async () => {
    const config = [join(dir, 'config_plain')];
    const cancelled = attempt({
      knownHostsPath,
      target: { identityFiles: [locked.privateKeyPath] },
      askPassphrase: () => Promise.resolve(undefined),
    });
    const error = await connectError({ ...cancelled.options, configPaths: config });
    expect(error).toMatchObject({
      code: 'cancelled',
      message: `Login cancelled: no passphrase was given for ${locked.privateKeyPath}.`,
    });

    const tries: string[] = [];
    const wrong = attempt({
      knownHostsPath,
      target: { identityFiles: [locked.privateKeyPath] },
      askPassphrase: () => {
        tries.push('x');
        return Promise.resolve(tries.length < 3 ? 'wrong' : passphrase);
      },
    });
    (await SshNodeConnection.connect({ ...wrong.options, configPaths: config })).dispose();
    expect(tries).toHaveLength(3);
  });

  it('logs in with a key held by ssh-agent; IdentitiesOnly keeps it out', async () => {
    const agent = await startAgent(mkdtempSync(join(dir, 'agent-')), [key.privateKeyPath]);
    try {
      writeFileSync(
        join(dir, 'config_agent'),
        `Host node\n  HostName 127.0.0.1\n  Port ${node.port}\n  User root\n`,
      );
      const viaAgent = attempt({ knownHostsPath, agentSocket: agent.socketPath });
      (
        await SshNodeConnection.connect({
          ...viaAgent.options,
          configPaths: [join(dir, 'config_agent')],
        })
      ).dispose();

      const only = attempt({
        knownHostsPath,
        agentSocket: agent.socketPath,
        target: { identityFiles: [stranger.privateKeyPath], identitiesOnly: true },
      });
      const error = await connectError({
        ...only.options,
        configPaths: [join(dir, 'config_agent')],
      });
      expect(error.code).toBe('unauthenticated');
      expect(error.detail).not.toMatch(/ssh-agent key/);
    } finally {
      await agent.stop();
    }
  });
});

describe('ProxyJump', () => {
  it('reaches the node through a jump host, checking the jump host key too', async () => {
    const path = knownHosts('kh_jump', [node.knownHostsLine]);
    const jumpMark = jump.log.length;
    const nodeMark = node.log.length;
    const viaJump = attempt({ knownHostsPath: path, target: { host: 'via-jump' } });
    const connection = await SshNodeConnection.connect(viaJump.options);
    const cri = CriClient.create({ endpoint: connection.endpoint });
    try {
      // Only the jump host was unknown, and it was asked about under its own address.
      expect(viaJump.prompts.map((p) => p.port)).toEqual([jump.port]);
      expect((await cri.version()).runtimeName).toBe(runtime.kind);
      // Both servers saw a login: the jump host's, then the node's through its forwarding.
      expect(logSince(jump, jumpMark)).toMatch(/Accepted publickey for root/);
      expect(logSince(node, nodeMark)).toMatch(/Accepted publickey for root/);
    } finally {
      cri.dispose();
      connection.dispose();
    }
  });

  it('chains several hops (ProxyJump j1,j2), each resolved through the config', async () => {
    const path = knownHosts('kh_two_jumps', [node.knownHostsLine, jump.knownHostsLine]);
    const jumpMark = jump.log.length;
    const viaTwo = attempt({ knownHostsPath: path, target: { host: 'via-two-jumps' } });
    const connection = await SshNodeConnection.connect(viaTwo.options);
    const cri = CriClient.create({ endpoint: connection.endpoint });
    try {
      expect(viaTwo.prompts).toEqual([]);
      expect((await cri.version()).runtimeName).toBe(runtime.kind);
      expect(logSince(jump, jumpMark).match(/Accepted publickey for root/g)).toHaveLength(2);
    } finally {
      cri.dispose();
      connection.dispose();
    }
  });

  it('refuses a jump host with a changed key before the node is contacted', async () => {
    const impostor = await generateKey(join(dir, 'jump_impostor'));
    const [type, blob] = impostor.publicKey.split(' ');
    const path = knownHosts('kh_jump_changed', [
      node.knownHostsLine,
      `[127.0.0.1]:${jump.port} ${type} ${blob}`,
    ]);
    const nodeMark = node.log.length;
    const viaJump = attempt({ knownHostsPath: path, target: { host: 'via-jump' } });
    const error = await connectError(viaJump.options);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toContain(`[127.0.0.1]:${jump.port} has changed`);
    expect(viaJump.prompts).toEqual([]);
    expect(logSince(node, nodeMark)).not.toMatch(/Connection from|Accepted/);
  });
});

describe('the runtime socket on the node', () => {
  let knownHostsPath: string;
  beforeAll(() => {
    knownHostsPath = knownHosts('kh_probe', [node.knownHostsLine]);
  });

  it('explains a configured endpoint that is missing, not a socket, or dead', async () => {
    const missing = join(dir, 'missing.sock');
    const error1 = await connectError(
      attempt({ knownHostsPath, target: { runtimeEndpoint: `unix://${missing}` } }).options,
    );
    expect(error1).toMatchObject({
      code: 'not-found',
      message: `No socket at ${missing} on node.`,
    });

    const file = join(dir, 'regular-file');
    writeFileSync(file, '');
    const error2 = await connectError(
      attempt({ knownHostsPath, target: { runtimeEndpoint: file } }).options,
    );
    expect(error2).toMatchObject({
      code: 'invalid-argument',
      message: `${file} on node exists but is not a socket.`,
    });

    // A socket whose process died: the file is left behind and nothing accepts.
    const stale = join(dir, 'stale.sock');
    await run(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]).catch(() => undefined);
    expect(existsSync(stale)).toBe(true);
    const error3 = await connectError(
      attempt({ knownHostsPath, target: { runtimeEndpoint: `unix://${stale}` } }).options,
    );
    expect(error3.code).toBe('unavailable');
    expect(error3.message).toBe(
      `Nothing accepts connections on ${stale} on node: the runtime has probably stopped.`,
    );
  });

  it('explains a socket the SSH user may not open (logged in as nobody)', async () => {
    const servers: Server[] = [];
    const listen = async (path: string): Promise<void> => {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(path, resolve));
    };
    // A socket in a directory nobody may enter (mkdtemp: 0700 root).
    const closedDir = mkdtempSync(join(dir, 'closed-'));
    const hidden = join(closedDir, 'runtime.sock');
    // A socket nobody can see but not open: root:daemon 0660 in a 0755 directory.
    const openDir = mkdtempSync(join(dir, 'open-'));
    chmodSync(dir, 0o755);
    chmodSync(openDir, 0o755);
    const grouped = join(openDir, 'runtime.sock');
    await listen(hidden);
    await listen(grouped);
    chownSync(grouped, 0, 1);
    chmodSync(grouped, 0o660);
    const asNobody = (runtimeEndpoint: string): SshConnectOptions =>
      attempt({ knownHostsPath, target: { user: 'nobody', runtimeEndpoint } }).options;
    try {
      const unreachable = await connectError(asNobody(`unix://${hidden}`));
      expect(unreachable).toMatchObject({
        code: 'permission-denied',
        message: `User nobody cannot reach ${hidden} on node: a directory on the way is closed to it.`,
      });

      const group = await connectError(asNobody(`unix://${grouped}`));
      expect(group).toMatchObject({
        code: 'permission-denied',
        message: `User nobody cannot open ${grouped} on node.`,
        hint: 'Add nobody to the group "daemon" (gid 1) that owns it (then log in again), or use a root login / sudo-capable setup.',
      });

      // The lab's socket is root:root 0660.
      const rootOnly = await connectError(asNobody(runtime.endpoint));
      expect(rootOnly).toMatchObject({
        code: 'permission-denied',
        message: `User nobody cannot open ${runtime.socketPath} on node.`,
      });
      expect(rootOnly.hint).toMatch(/^Only root may open it: log in as root/);
    } finally {
      chmodSync(dir, 0o700);
      for (const server of servers) server.close();
    }
  });

  it('finds the runtime by probing the well-known sockets over SFTP', async (context) => {
    // Give the node a runtime at a well-known path: a link to the lab's socket. Only where
    // that path is free (never touch a real runtime's socket).
    const candidate = wellKnownEndpoints.find(
      (e) => e.endpoint === 'unix:///run/k0s/containerd.sock',
    )!;
    const linkDir = '/run/k0s';
    if (existsSync(linkDir) || process.getuid?.() !== 0) {
      context.skip();
      return;
    }
    mkdirSync(linkDir);
    symlinkSync(runtime.socketPath, join(linkDir, 'containerd.sock'));
    try {
      const { options } = attempt({ knownHostsPath, target: { runtimeEndpoint: undefined } });
      const connection = await SshNodeConnection.connect(options);
      try {
        const probes = connection.runtimeProbes;
        const ready = probes.find((probe) => probe.state === 'ready')!;
        expect(connection.runtimeSocketPath).toBe(ready.endpoint.replace('unix://', ''));
        // Every probe before the chosen one found nothing there.
        expect(probes.slice(0, -1).every((probe) => probe.state === 'absent')).toBe(true);
        if (probes.length > 1 || ready.endpoint === candidate.endpoint) {
          expect(ready).toMatchObject({ endpoint: candidate.endpoint, runtime: candidate.runtime });
        }
        const cri = CriClient.create({ endpoint: connection.endpoint });
        expect((await cri.version()).runtimeName).toBe(runtime.kind);
        cri.dispose();
      } finally {
        connection.dispose();
      }
    } finally {
      rmSync(linkDir, { recursive: true, force: true });
    }
  });
});
