import { describe, expect, it } from 'vitest';
import type { NodeStatus } from '../../../../shared/model';
import { draftFromStatus, emptyDraft, normalizeEndpoint, validateProfile } from './profile-form';

const saved: NodeStatus = {
  nodeId: 'n1',
  name: 'worker-1',
  kind: 'local',
  endpoint: 'unix:///run/containerd/containerd.sock',
  origin: 'saved',
  state: 'disconnected',
};

describe('validateProfile', () => {
  it('accepts a socket and turns seconds into a deadline', () => {
    const result = validateProfile(
      {
        ...emptyDraft,
        name: ' lab ',
        endpoint: '/tmp/lab.sock',
        timeoutSeconds: '7.5',
        autoConnect: true,
      },
      [saved],
    );
    expect(result).toEqual({
      ok: true,
      input: {
        kind: 'local',
        name: 'lab',
        endpoint: 'unix:///tmp/lab.sock',
        timeoutMs: 7500,
        autoConnect: true,
      },
    });
  });

  it('names what is missing or wrong', () => {
    const result = validateProfile({ ...emptyDraft, timeoutSeconds: '0' }, []);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual(['endpoint', 'name', 'timeoutSeconds']);
  });

  it('refuses tcp:// and relative paths with the reason', () => {
    const tcp = validateProfile({ ...emptyDraft, name: 'x', endpoint: 'tcp://10.0.0.1:1234' }, []);
    expect(tcp.ok ? '' : tcp.errors.endpoint).toMatch(/unix:\/\/ sockets only/);
    const relative = validateProfile(
      { ...emptyDraft, name: 'x', endpoint: 'unix://run/c.sock' },
      [],
    );
    expect(relative.ok ? '' : relative.errors.endpoint).toMatch(/absolute/);
  });

  it('refuses a second saved node with the same name or endpoint, but not the node itself', () => {
    const twin = validateProfile({ ...emptyDraft, name: 'worker-1', endpoint: saved.endpoint }, [
      saved,
    ]);
    expect(twin.ok ? {} : twin.errors).toMatchObject({
      name: expect.any(String) as string,
      endpoint: expect.any(String) as string,
    });
    expect(
      validateProfile({ ...emptyDraft, id: 'n1', name: 'worker-1', endpoint: saved.endpoint }, [
        saved,
      ]).ok,
    ).toBe(true);
  });

  it('caps the timeout', () => {
    const result = validateProfile(
      { ...emptyDraft, name: 'x', endpoint: '/a.sock', timeoutSeconds: '601' },
      [],
    );
    expect(result.ok ? '' : result.errors.timeoutSeconds).toMatch(/600/);
  });
});

describe('normalizeEndpoint', () => {
  it('adds unix:// to a bare path only', () => {
    expect(normalizeEndpoint(' /run/x.sock ')).toBe('unix:///run/x.sock');
    expect(normalizeEndpoint('unix:///run/x.sock')).toBe('unix:///run/x.sock');
  });
});

describe('validateProfile for SSH nodes', () => {
  const sshDraft = { ...emptyDraft, kind: 'ssh' as const, name: 'node-1', host: 'node-1' };

  it('needs only a name and a host: the socket is probed on the node', () => {
    expect(validateProfile(sshDraft, [saved])).toEqual({
      ok: true,
      input: { kind: 'ssh', name: 'node-1', host: 'node-1', autoConnect: false },
    });
  });

  it('carries user, port, key, jump hosts and the remote socket', () => {
    const result = validateProfile(
      {
        ...sshDraft,
        user: ' ops ',
        port: '2222',
        identityFile: '~/.ssh/id_ed25519',
        proxyJump: 'bastion',
        endpoint: '/run/k3s/containerd/containerd.sock',
        timeoutSeconds: '20',
      },
      [],
    );
    expect(result).toEqual({
      ok: true,
      input: {
        kind: 'ssh',
        name: 'node-1',
        host: 'node-1',
        user: 'ops',
        port: 2222,
        identityFiles: ['~/.ssh/id_ed25519'],
        proxyJump: 'bastion',
        runtimeEndpoint: 'unix:///run/k3s/containerd/containerd.sock',
        timeoutMs: 20_000,
        autoConnect: false,
      },
    });
  });

  it('names a missing host, a bad port and a bad remote socket', () => {
    const result = validateProfile(
      { ...sshDraft, host: '', port: '70000', endpoint: 'tcp://node-1:2376' },
      [],
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(Object.keys(result.errors).sort()).toEqual(['endpoint', 'host', 'port']);
      expect(result.errors.port).toContain('1 to 65535');
    }
  });

  it('refuses a host that looks like an option', () => {
    const result = validateProfile({ ...sshDraft, host: '-oProxyCommand=x' }, []);
    expect(result.ok).toBe(false);
  });

  it('round-trips a saved SSH profile through the form', () => {
    const profile = {
      id: 'ssh-1',
      kind: 'ssh' as const,
      name: 'node-1',
      host: 'node-1',
      port: 2222,
      identityFiles: ['/k'],
      timeoutMs: 5000,
    };
    const status: NodeStatus = {
      nodeId: 'ssh-1',
      name: 'node-1',
      kind: 'ssh',
      endpoint: 'ssh://node-1:2222',
      origin: 'saved',
      state: 'disconnected',
      profile,
    };
    const draft = draftFromStatus(status, profile);
    expect(draft).toMatchObject({ kind: 'ssh', host: 'node-1', port: '2222', identityFile: '/k' });
    expect(validateProfile(draft, [status])).toMatchObject({
      ok: true,
      input: { id: 'ssh-1', kind: 'ssh', port: 2222, identityFiles: ['/k'], timeoutMs: 5000 },
    });
  });
});
