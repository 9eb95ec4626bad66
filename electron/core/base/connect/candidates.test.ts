import { describe, expect, it } from 'vitest';
import { listCandidates, type CandidateInputs } from './candidates';
import { parseCrictlConfig } from './crictl-config';
import { wellKnownEndpoints } from './well-known';

const base: CandidateInputs = {
  env: {},
  crictlConfigPath: '/etc/crictl.yaml',
  crictlConfig: { state: 'absent' },
};

describe('listCandidates', () => {
  it('falls back to the well-known sockets when nothing is configured', () => {
    const { candidates, warnings } = listCandidates(base);
    expect(candidates.map((c) => c.endpoint)).toEqual(wellKnownEndpoints.map((w) => w.endpoint));
    expect(candidates.every((c) => c.source === 'well-known')).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('orders explicit, environment, crictl.yaml, well-known — as crictl does', () => {
    const { candidates } = listCandidates({
      explicit: { endpoint: 'unix:///custom/a.sock' },
      env: {
        CONTAINER_RUNTIME_ENDPOINT: 'unix:///env/b.sock',
        IMAGE_SERVICE_ENDPOINT: 'unix:///env/img.sock',
      },
      crictlConfigPath: '/etc/crictl.yaml',
      crictlConfig: parseCrictlConfig(
        'runtime-endpoint: unix:///cfg/c.sock\nimage-endpoint: unix:///cfg/i.sock\ntimeout: 7\n',
        '/etc/crictl.yaml',
      ),
    });
    expect(candidates.slice(0, 3)).toEqual([
      {
        endpoint: 'unix:///custom/a.sock',
        imageEndpoint: 'unix:///custom/a.sock',
        source: 'explicit',
        origin: 'Porthole settings',
      },
      {
        endpoint: 'unix:///env/b.sock',
        imageEndpoint: 'unix:///env/img.sock',
        source: 'environment',
        origin: 'CONTAINER_RUNTIME_ENDPOINT',
      },
      {
        endpoint: 'unix:///cfg/c.sock',
        imageEndpoint: 'unix:///cfg/i.sock',
        source: 'crictl-config',
        origin: '/etc/crictl.yaml',
        timeoutMs: 7000,
      },
    ]);
  });

  it('probes a socket once even when several sources name it', () => {
    const { candidates } = listCandidates({
      ...base,
      env: { CONTAINER_RUNTIME_ENDPOINT: '/run/containerd/containerd.sock' },
    });
    const containerd = candidates.filter((c) =>
      c.endpoint.endsWith('/run/containerd/containerd.sock'),
    );
    expect(containerd.map((c) => c.source)).toEqual(['environment', 'well-known']);
    expect(
      candidates.filter((c) => c.endpoint === 'unix:///run/containerd/containerd.sock'),
    ).toEqual([]);
  });

  it("puts a running lab's runtimes after crictl.yaml and before the well-known sockets", () => {
    const { candidates } = listCandidates({
      ...base,
      env: { CONTAINER_RUNTIME_ENDPOINT: 'unix:///lab/containerd-2/containerd.sock' },
      lab: {
        path: '/tmp/porthole-lab/lab.json',
        result: {
          state: 'loaded',
          runtimes: [
            { id: 'containerd-1.6', endpoint: 'unix:///lab/containerd-1.6/containerd.sock' },
            { id: 'containerd-2', endpoint: 'unix:///lab/containerd-2/containerd.sock' },
          ],
        },
      },
    });
    // The runtime the environment names is probed once, as the environment's.
    expect(candidates.slice(0, 2)).toEqual([
      expect.objectContaining({ source: 'environment' }),
      {
        endpoint: 'unix:///lab/containerd-1.6/containerd.sock',
        imageEndpoint: 'unix:///lab/containerd-1.6/containerd.sock',
        source: 'lab',
        origin: 'lab containerd-1.6',
      },
    ]);
    expect(candidates[2]?.source).toBe('well-known');
  });

  it('reports a lab state file it could not use', () => {
    const { candidates, warnings } = listCandidates({
      ...base,
      lab: { path: '/tmp/l/lab.json', result: { state: 'invalid', message: 'not JSON' } },
    });
    expect(warnings).toEqual(['not JSON']);
    expect(candidates.every((c) => c.source === 'well-known')).toBe(true);
  });

  it('reports a broken crictl.yaml and an orphan image endpoint as warnings', () => {
    const { warnings } = listCandidates({
      ...base,
      env: { IMAGE_SERVICE_ENDPOINT: 'unix:///x.sock' },
      crictlConfig: parseCrictlConfig('runtime-endpoint: [unclosed', '/etc/crictl.yaml'),
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('IMAGE_SERVICE_ENDPOINT');
    expect(warnings[1]).toContain('/etc/crictl.yaml is not valid YAML');
  });
});

describe('parseCrictlConfig', () => {
  it('reads the three settings that locate a runtime', () => {
    expect(
      parseCrictlConfig(
        'runtime-endpoint: unix:///a\nimage-endpoint: unix:///b\ntimeout: 2\ndebug: true\n',
        'f',
      ),
    ).toEqual({
      state: 'loaded',
      config: { runtimeEndpoint: 'unix:///a', imageEndpoint: 'unix:///b', timeoutSeconds: 2 },
    });
  });

  it('accepts an empty file', () => {
    expect(parseCrictlConfig('', 'f')).toEqual({ state: 'loaded', config: {} });
  });

  it('rejects a non-numeric timeout and a non-mapping document', () => {
    expect(parseCrictlConfig('timeout: soon\n', 'f').state).toBe('invalid');
    expect(parseCrictlConfig('- a\n- b\n', 'f').state).toBe('invalid');
  });
});
