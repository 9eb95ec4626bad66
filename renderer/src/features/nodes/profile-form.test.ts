import { describe, expect, it } from 'vitest';
import type { NodeStatus } from '../../../../shared/model';
import { emptyDraft, normalizeEndpoint, validateProfile } from './profile-form';

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
