import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { parseEndpoint } from './endpoint';

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('parseEndpoint', () => {
  it.each([
    ['unix:///run/containerd/containerd.sock', '/run/containerd/containerd.sock'],
    ['unix:/run/crio/crio.sock', '/run/crio/crio.sock'],
    ['/var/run/cri-dockerd.sock', '/var/run/cri-dockerd.sock'],
    ['  unix:///run//k3s/containerd/containerd.sock ', '/run/k3s/containerd/containerd.sock'],
  ])('%s is the unix socket %s', (raw, path) => {
    expect(parseEndpoint(raw)).toEqual({ kind: 'unix', path, uri: `unix://${path}` });
  });

  it('refuses tcp:// with a reason and a way forward', () => {
    const error = errorOf(() => parseEndpoint('tcp://10.0.0.1:2376'));
    expect(error.code).toBe('unsupported-endpoint');
    expect(error.message).toContain('TCP');
    expect(error.hint).toContain('SSH');
  });

  it('refuses npipe:// as unsupported', () => {
    expect(errorOf(() => parseEndpoint('npipe:////./pipe/containerd-containerd')).code).toBe(
      'unsupported-endpoint',
    );
  });

  it.each(['', 'containerd.sock', 'unix://relative/path.sock', 'http://x'])(
    '%j is rejected as invalid',
    (raw) => {
      expect(errorOf(() => parseEndpoint(raw)).code).toBe('invalid-argument');
    },
  );

  it('rejects socket paths longer than a sockaddr_un can hold', () => {
    const error = errorOf(() => parseEndpoint(`/${'x'.repeat(120)}.sock`));
    expect(error.message).toContain('too long');
  });
});
