import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import {
  expandPath,
  loadSshConfig,
  parseJumpHop,
  resolveHost,
  resolveRoute,
  type SshEnvironment,
} from './config';

let home: string;
let env: SshEnvironment;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'porthole-sshconfig-'));
  mkdirSync(join(home, '.ssh', 'config.d'), { recursive: true });
  env = { homeDir: home, localUser: 'me' };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function load(user: string, system = ''): Promise<Awaited<ReturnType<typeof loadSshConfig>>> {
  writeFileSync(join(home, '.ssh', 'config'), user);
  writeFileSync(join(home, 'system_config'), system);
  return loadSshConfig([join(home, '.ssh', 'config'), join(home, 'system_config')], env);
}

describe('resolving a host through ssh_config', () => {
  it('applies HostName, User, Port, IdentityFile and IdentitiesOnly of an alias', async () => {
    const config = await load(`
Host node-1
  HostName 10.0.0.5
  User alice
  Port 2222
  IdentityFile ~/.ssh/node_key
  IdentityFile %d/.ssh/second_%r
  IdentitiesOnly yes
`);
    const host = resolveHost(config, { host: 'node-1' }, env);
    expect(host).toMatchObject({
      alias: 'node-1',
      hostName: '10.0.0.5',
      user: 'alice',
      port: 2222,
      identitiesOnly: true,
      identityFilesConfigured: true,
      knownHostsName: '10.0.0.5',
    });
    expect(host.identityFiles).toEqual([
      join(home, '.ssh', 'node_key'),
      join(home, '.ssh', 'second_alice'),
    ]);
  });

  it('lets the profile win over the config, like command-line options', async () => {
    const config = await load('Host n\n  User alice\n  Port 2222\n  IdentityFile ~/.ssh/a\n');
    const host = resolveHost(
      config,
      { host: 'n', user: 'bob', port: 22, identityFiles: ['~/.ssh/b'], identitiesOnly: true },
      env,
    );
    expect(host).toMatchObject({ user: 'bob', port: 22, identitiesOnly: true });
    expect(host.identityFiles).toEqual([join(home, '.ssh', 'b'), join(home, '.ssh', 'a')]);
  });

  it('takes the first value, matching Host patterns with wildcards and negation', async () => {
    const config = await load(`
Host *.prod !bastion.prod
  User deploy
Host node-*
  Port 2200
Host *
  User fallback
  Port 22
`);
    expect(resolveHost(config, { host: 'web.prod' }, env).user).toBe('deploy');
    expect(resolveHost(config, { host: 'bastion.prod' }, env).user).toBe('fallback');
    expect(resolveHost(config, { host: 'node-3' }, env).port).toBe(2200);
    expect(resolveHost(config, { host: 'other' }, env)).toMatchObject({
      user: 'fallback',
      port: 22,
      hostName: 'other',
    });
  });

  it('falls back to ssh defaults: local user, port 22, the default key names', async () => {
    const config = await load('');
    const host = resolveHost(config, { host: 'plain.example.com' }, env);
    expect(host).toMatchObject({ user: 'me', port: 22, identityFilesConfigured: false });
    expect(host.identityFiles).toContain(join(home, '.ssh', 'id_ed25519'));
    expect(host.userKnownHostsFiles[0]).toBe(join(home, '.ssh', 'known_hosts'));
  });

  it('reads the system config after the user config, without scope leaking across files', async () => {
    const config = await load('Host only-user\n  User u\n', 'User system\nHashKnownHosts yes\n');
    expect(resolveHost(config, { host: 'x' }, env)).toMatchObject({
      user: 'system',
      hashKnownHosts: true,
    });
    expect(resolveHost(config, { host: 'only-user' }, env).user).toBe('u');
  });

  it('uses HostKeyAlias, UserKnownHostsFile, keepalives and ConnectTimeout', async () => {
    const config = await load(`
Host n
  HostKeyAlias n-key
  UserKnownHostsFile ~/kh1 ~/kh2
  ServerAliveInterval 5
  ServerAliveCountMax 2
  ConnectTimeout 7
  StrictHostKeyChecking yes
`);
    expect(resolveHost(config, { host: 'n' }, env)).toMatchObject({
      knownHostsName: 'n-key',
      userKnownHostsFiles: [join(home, 'kh1'), join(home, 'kh2')],
      keepaliveIntervalSeconds: 5,
      keepaliveCountMax: 2,
      connectTimeoutSeconds: 7,
      strictHostKeyChecking: true,
    });
  });

  it('refuses ProxyCommand instead of running it, and never runs Match exec', async () => {
    const config = await load(`
Match exec "touch ${join(home, 'pwned')}"
  User exec
Host pc
  ProxyCommand nc %h %p
`);
    expect(() => resolveHost(config, { host: 'pc' }, env)).toThrow(/ProxyCommand/);
    expect(resolveHost(config, { host: 'x' }, env).user).toBe('me');
    expect(existsSync(join(home, 'pwned'))).toBe(false);
    expect(() => resolveHost(config, { host: '-oProxyCommand=x' }, env)).toThrow(AppError);
  });

  it('never runs nslookup for CanonicalizeHostName: the option is ignored with a warning', async () => {
    // A stand-in nslookup first on PATH, which leaves a mark if anything runs it.
    const bin = join(home, 'bin');
    mkdirSync(bin, { recursive: true });
    const mark = join(home, 'nslookup-ran');
    writeFileSync(join(bin, 'nslookup'), `#!/bin/sh\necho "$@" >> ${mark}\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    try {
      const config = await load(`
Host node-1
  CanonicalizeHostName yes
  CanonicalDomains corp.example lab.example
  User alice
Host *.corp.example
  User bob
Host quiet
  CanonicalizeHostName no
`);
      const host = resolveHost(config, { host: 'node-1' }, env);
      expect(existsSync(mark)).toBe(false);
      // The name is used as given (ssh would have matched node-1.corp.example's block).
      expect(host).toMatchObject({ hostName: 'node-1', user: 'alice' });
      expect(config.warnings).toEqual([
        expect.stringMatching(/^CanonicalizeHostName yes in the SSH config is ignored/) as string,
      ]);
    } finally {
      process.env.PATH = path;
    }
  });

  it('takes only host names from profiles and from the config: nothing known_hosts reads as a pattern', async () => {
    const config = await load(`
Host alias-comma
  HostKeyAlias github.com,x.evil.example
Host alias-star
  HostName *.example.com
Host good
  HostName 10.0.0.9
  HostKeyAlias node-good
`);
    for (const host of [
      'github.com,x.evil.example',
      'a*',
      'node?',
      '!node',
      '[::1]',
      'a b',
      'a|b',
    ]) {
      expect(() => resolveHost(config, { host }, env), host).toThrow(/is not a host name/);
    }
    expect(() => resolveHost(config, { host: 'alias-comma' }, env)).toThrow(
      'The SSH config gives alias-comma the HostKeyAlias "github.com,x.evil.example", which contains ","; Porthole refused to use it.',
    );
    expect(() => resolveHost(config, { host: 'alias-star' }, env)).toThrow(
      /HostName "\*\.example\.com"/,
    );
    // A jump hop goes through the same check.
    expect(() => resolveRoute(config, { host: 'good', proxyJump: 'a,b*' }, env)).toThrow(
      /is not a host name/,
    );
    expect(resolveHost(config, { host: 'good' }, env)).toMatchObject({
      hostName: '10.0.0.9',
      knownHostsName: 'node-good',
    });
  });
});

describe('Include', () => {
  it('inlines top-level includes (globs, relative to ~/.ssh) and restores top-level scope', async () => {
    writeFileSync(join(home, '.ssh', 'config.d', '10-lab'), 'Host lab-*\n  User labuser\n');
    writeFileSync(join(home, '.ssh', 'config.d', '20-web'), 'Host web\n  Port 8022\n');
    const config = await load('Include config.d/*\nUser toplevel\n');
    expect(resolveHost(config, { host: 'lab-1' }, env).user).toBe('labuser');
    expect(resolveHost(config, { host: 'web' }, env)).toMatchObject({
      port: 8022,
      user: 'toplevel',
    });
    // The line after the Include is top-level again, not part of "Host web".
    expect(resolveHost(config, { host: 'other' }, env).user).toBe('toplevel');
  });

  it('inlines a plain-directive file inside a Host block, and skips a sectioned one with a warning', async () => {
    writeFileSync(join(home, 'plain.conf'), 'User fromplain\n');
    writeFileSync(join(home, 'sectioned.conf'), 'Host zzz\n  User z\n');
    const config = await load(
      `Host a\n  Include ${join(home, 'plain.conf')}\nHost b\n  Include ${join(home, 'sectioned.conf')}\n`,
    );
    expect(resolveHost(config, { host: 'a' }, env).user).toBe('fromplain');
    expect(resolveHost(config, { host: 'other' }, env).user).toBe('me');
    expect(config.warnings.join('\n')).toMatch(/sectioned\.conf/);
  });

  it('ignores missing include files and stops include loops', async () => {
    writeFileSync(join(home, '.ssh', 'loop'), 'Include loop\n');
    const config = await load('Include does-not-exist\nInclude loop\nUser after\n');
    expect(resolveHost(config, { host: 'x' }, env).user).toBe('after');
    expect(config.warnings.join('\n')).toMatch(/nested deeper/);
  });
});

describe('ProxyJump', () => {
  it('parses hops: user, port, IPv6, ssh:// form', () => {
    expect(parseJumpHop('bastion')).toEqual({ host: 'bastion' });
    expect(parseJumpHop('ops@bastion:2200')).toEqual({ host: 'bastion', user: 'ops', port: 2200 });
    expect(parseJumpHop('[fd00::1]:22')).toEqual({ host: 'fd00::1', port: 22 });
    expect(parseJumpHop('ssh://a@b')).toEqual({ host: 'b', user: 'a' });
    expect(() => parseJumpHop('a:b:c')).toThrow(AppError);
    expect(() => parseJumpHop('h:99999')).toThrow(/not a port/);
  });

  it('resolves every hop through the config, first hop first', async () => {
    const config = await load(`
Host node-1
  HostName 10.0.0.5
  ProxyJump j1,ops@j2:2200
Host j1
  HostName jump1.example.com
  User j1user
Host j2
  HostName jump2.example.com
  IdentityFile ~/.ssh/j2key
`);
    const route = resolveRoute(config, { host: 'node-1' }, env);
    expect(route.map((hop) => [hop.alias, hop.hostName, hop.user, hop.port])).toEqual([
      ['j1', 'jump1.example.com', 'j1user', 22],
      ['j2', 'jump2.example.com', 'ops', 2200],
      ['node-1', '10.0.0.5', 'me', 22],
    ]);
    expect(route[1]!.identityFiles).toEqual([join(home, '.ssh', 'j2key')]);
  });

  it("applies a single hop's own ProxyJump, lets the profile override, and stops loops", async () => {
    const config = await load(`
Host inner
  ProxyJump outer
Host node
  ProxyJump inner
Host loop
  ProxyJump loop
`);
    expect(resolveRoute(config, { host: 'node' }, env).map((h) => h.alias)).toEqual([
      'outer',
      'inner',
      'node',
    ]);
    expect(resolveRoute(config, { host: 'node', proxyJump: 'none' }, env)).toHaveLength(1);
    expect(() => resolveRoute(config, { host: 'loop' }, env)).toThrow(/loop/);
  });
});

describe('path tokens', () => {
  it('expands ~ and the %-tokens ssh documents', () => {
    const host = { hostName: 'h.example', user: 'r', port: 2222, alias: 'h' };
    expect(expandPath('~/.ssh/%h_%r_%p_%n_%u_%%', env, host)).toBe(
      join(home, '.ssh', 'h.example_r_2222_h_me_%'),
    );
    expect(expandPath('relative/key', env)).toBe(join(home, 'relative', 'key'));
  });
});
