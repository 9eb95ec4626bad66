import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeProfileInput } from '../../../../shared/model';
import { ProfileStore, profileInputSchema, profileSchema } from './profile-store';
import { hostNameHint } from '../../base/ssh';
import { sshAddress, sshTargetOf } from './ssh';

const ssh = {
  kind: 'ssh',
  name: 'node-1',
  host: 'node-1.lab',
} as const satisfies NodeProfileInput;

function problem(input: unknown): string {
  const parsed = profileInputSchema.safeParse(input);
  if (parsed.success) throw new Error('expected the profile to be refused');
  return parsed.error.issues.map((issue) => issue.message).join('\n');
}

describe('the profile schema', () => {
  it('accepts local profiles as before', () => {
    const local = {
      id: 'p1',
      kind: 'local',
      name: 'Lab',
      endpoint: 'unix:///run/containerd/containerd.sock',
      imageEndpoint: 'unix:///run/images.sock',
      timeoutMs: 5000,
      autoConnect: true,
    };
    expect(profileSchema.parse(local)).toEqual(local);
  });

  it('accepts a full SSH profile and trims its strings', () => {
    const full = {
      id: 'p2',
      kind: 'ssh',
      name: ' node-1 ',
      host: ' 10.0.0.5 ',
      user: 'root',
      port: 2222,
      identityFiles: ['~/.ssh/id_ed25519', '/keys/lab'],
      identitiesOnly: true,
      proxyJump: 'bastion, admin@jump:2200',
      runtimeEndpoint: 'unix:///run/containerd/containerd.sock',
      keepaliveIntervalSeconds: 0,
      keepaliveCountMax: 3,
      connectTimeoutSeconds: 20,
      timeoutMs: 10_000,
      autoConnect: false,
    };
    expect(profileSchema.parse(full)).toEqual({ ...full, name: 'node-1', host: '10.0.0.5' });
  });

  it('requires the host and a name', () => {
    expect(problem({ kind: 'ssh', name: 'x' })).toMatch(/^Enter the SSH host/);
    expect(problem({ ...ssh, host: 7 })).toMatch(/SSH host .* must be text/);
    expect(problem({ ...ssh, host: '  ' })).toMatch(/Enter the SSH host/);
    expect(problem({ ...ssh, name: '' })).toBe('Give the node a name.');
  });

  it('refuses hosts and users with spaces or a leading dash', () => {
    expect(problem({ ...ssh, host: 'a b' })).toMatch(/cannot contain spaces/);
    expect(problem({ ...ssh, host: '-oProxyCommand=x' })).toMatch(/cannot start with "-"/);
    expect(problem({ ...ssh, user: 'ro ot' })).toMatch(/SSH user cannot contain spaces/);
  });

  it('takes only a host name or address as the host: nothing known_hosts reads as patterns', () => {
    expect(problem({ ...ssh, host: 'github.com,x.evil.example' })).toBe(
      `The SSH host contains ",". ${hostNameHint}`,
    );
    for (const host of ['*.example.com', 'node-?', '!node', '[::1]', 'a|b', 'node#1', 'a\u200bb']) {
      expect(problem({ ...ssh, host }), host).toMatch(/^The SSH host (contains|is in brackets)/);
    }
    for (const host of ['node-1.lab', '10.0.0.5', '2001:db8::5', 'my_alias']) {
      expect(profileInputSchema.safeParse({ ...ssh, host }).success, host).toBe(true);
    }
  });

  it('bounds the port, keepalives and the connect timeout', () => {
    expect(problem({ ...ssh, port: 0 })).toBe('The SSH port is between 1 and 65535.');
    expect(problem({ ...ssh, port: 65_536 })).toBe('The SSH port is between 1 and 65535.');
    expect(problem({ ...ssh, port: 22.5 })).toMatch(/whole number/);
    expect(problem({ ...ssh, keepaliveIntervalSeconds: -1 })).toMatch(/0 \(off\)/);
    expect(problem({ ...ssh, keepaliveIntervalSeconds: 3601 })).toMatch(/at most 3600/);
    expect(problem({ ...ssh, keepaliveCountMax: 0 })).toMatch(/at least 1/);
    expect(problem({ ...ssh, connectTimeoutSeconds: 0 })).toMatch(/at least 1 second/);
    expect(problem({ ...ssh, connectTimeoutSeconds: 601 })).toMatch(/at most 600/);
    expect(problem({ ...ssh, timeoutMs: 50 })).toMatch(/>=100/);
  });

  it('wants identity files and the jump hosts as strings', () => {
    expect(problem({ ...ssh, identityFiles: '/keys/lab' })).toMatch(/expected array/i);
    expect(problem({ ...ssh, identityFiles: [''] })).toMatch(/identity file path is empty/);
    expect(problem({ ...ssh, identityFiles: [42] })).toMatch(/expected string/i);
    expect(problem({ ...ssh, proxyJump: 'a b' })).toMatch(/separated by commas/);
    expect(problem({ ...ssh, proxyJump: 3 })).toMatch(/expected string/i);
  });

  it('refuses unknown fields and unknown kinds', () => {
    expect(problem({ ...ssh, password: 'hunter2' })).toMatch(/password/);
    expect(problem({ ...ssh, kind: 'tcp' })).toBe('A node profile is "local" or "ssh" (its kind).');
    // A local field on an SSH profile is a mistake too.
    expect(problem({ ...ssh, endpoint: 'unix:///x.sock' })).toMatch(/endpoint/);
  });
});

describe('ProfileStore', () => {
  let dir: string;
  let store: ProfileStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-profiles-'));
    store = new ProfileStore(dir);
    await store.load();
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('saves an SSH profile with an id and reads it back', async () => {
    const saved = await store.save({ ...ssh, port: 2222, identityFiles: ['/keys/lab'] });
    expect(saved).toMatchObject({ kind: 'ssh', host: 'node-1.lab', port: 2222 });
    expect(saved.id).toMatch(/^profile-/);
    const again = new ProfileStore(dir);
    await again.load();
    expect(again.list()).toEqual([saved]);
  });

  it("checks an SSH profile's runtime endpoint like a local one", async () => {
    await expect(
      store.save({ ...ssh, runtimeEndpoint: 'tcp://10.0.0.5:10010' }),
    ).rejects.toMatchObject({ code: 'unsupported-endpoint' });
    await expect(store.save({ ...ssh, runtimeEndpoint: 'containerd' })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
    await expect(
      store.save({ ...ssh, runtimeEndpoint: '/run/containerd/containerd.sock' }),
    ).resolves.toMatchObject({ runtimeEndpoint: '/run/containerd/containerd.sock' });
  });

  it('keeps loading existing local profiles beside SSH ones, skipping bad entries', async () => {
    await writeFile(
      join(dir, 'nodes.json'),
      JSON.stringify({
        version: 1,
        profiles: [
          { id: 'old', kind: 'local', name: 'Old', endpoint: 'unix:///run/a.sock' },
          { id: 'remote', kind: 'ssh', name: 'Remote', host: 'n1', port: 22 },
          { id: 'bad', kind: 'ssh', name: 'Bad', host: 'n2', port: 70_000 },
        ],
      }),
    );
    const { warnings } = await store.load();
    expect(store.list().map((profile) => profile.id)).toEqual(['old', 'remote']);
    expect(warnings.join('\n')).toMatch(/profile 2 was skipped/);
    // Saving rewrites the file with the good profiles only.
    await store.save({ kind: 'local', name: 'New', endpoint: 'unix:///run/b.sock' });
    const file = JSON.parse(await readFile(join(dir, 'nodes.json'), 'utf8')) as {
      profiles: { id: string }[];
    };
    expect(file.profiles.map((profile) => profile.id).slice(0, 2)).toEqual(['old', 'remote']);
  });
});

describe('SSH profile helpers', () => {
  const profile = {
    id: 'p',
    kind: 'ssh',
    name: 'node-1',
    host: 'fe80::1',
    user: 'root',
    port: 2222,
    timeoutMs: 5000,
    autoConnect: true,
    proxyJump: 'bastion',
  } as const;

  it('maps a profile to an SshTarget without what only Porthole uses', () => {
    expect(sshTargetOf(profile)).toEqual({
      kind: 'ssh',
      name: 'node-1',
      host: 'fe80::1',
      user: 'root',
      port: 2222,
      proxyJump: 'bastion',
    });
  });

  it('writes the address as ssh://user@host:port', () => {
    expect(sshAddress(profile)).toBe('ssh://root@[fe80::1]:2222');
    expect(sshAddress({ id: 'q', kind: 'ssh', name: 'q', host: 'node-1' })).toBe('ssh://node-1');
  });
});
