import { describe, expect, it } from 'vitest';
import { canOpenSocket, noRuntimeError, permissionAdvice } from './runtime-probe';

const socket = (mode: number, uid = 0, gid = 0): { mode: number; uid: number; gid: number } => ({
  mode: 0o140000 | mode,
  uid,
  gid,
});

describe('who may open a runtime socket', () => {
  it('needs write permission for the matching class; root always may', () => {
    expect(canOpenSocket(socket(0o600), { uid: 0, gids: [0] })).toBe(true);
    expect(canOpenSocket(socket(0o660, 0, 996), { uid: 1000, gids: [1000] })).toBe(false);
    expect(canOpenSocket(socket(0o660, 0, 996), { uid: 1000, gids: [1000, 996] })).toBe(true);
    expect(canOpenSocket(socket(0o640, 0, 996), { uid: 1000, gids: [996] })).toBe(false);
    expect(canOpenSocket(socket(0o600, 1000, 1000), { uid: 1000, gids: [] })).toBe(true);
    // The owner class decides for the owner, even if "other" could write.
    expect(canOpenSocket(socket(0o066, 1000, 1000), { uid: 1000, gids: [1000] })).toBe(false);
    expect(canOpenSocket(socket(0o666), { uid: 1000, gids: [] })).toBe(true);
  });
});

describe('what to tell a user who may not', () => {
  it('names the group that owns a group-writable socket', () => {
    const advice = permissionAdvice(
      socket(0o660, 0, 996),
      'alice',
      '/run/containerd/containerd.sock',
      'node-1',
      'containerd',
    );
    expect(advice.message).toBe(
      'User alice cannot open /run/containerd/containerd.sock on node-1.',
    );
    expect(advice.hint).toBe(
      'Add alice to the group "containerd" (gid 996) that owns it (then log in again), or use a root login / sudo-capable setup.',
    );
  });

  it('says only root may, for a root-only socket', () => {
    const advice = permissionAdvice(socket(0o600), 'alice', '/run/x.sock', 'node-1', undefined);
    expect(advice.hint).toMatch(/^Only root may open it/);
  });
});

describe('no usable runtime', () => {
  it('prefers the actionable permission error over absent sockets', () => {
    const error = noRuntimeError('node-1', [
      { endpoint: 'unix:///run/a.sock', runtime: 'a', state: 'absent' },
      {
        endpoint: 'unix:///run/b.sock',
        runtime: 'b',
        state: 'refused',
        message: 'User alice cannot open /run/b.sock on node-1.',
        hint: 'Add alice…',
      },
    ]);
    expect(error.code).toBe('permission-denied');
    expect(error.message).toBe('User alice cannot open /run/b.sock on node-1.');
    expect(error.detail).toContain('unix:///run/a.sock: absent');
  });

  it('says none was found when every socket is absent', () => {
    const error = noRuntimeError('node-1', [
      { endpoint: 'unix:///run/a.sock', runtime: 'a', state: 'absent' },
    ]);
    expect(error.code).toBe('not-found');
    expect(error.hint).toMatch(/runtime endpoint/);
  });
});
