import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { ContainerDetail, PodSandboxDetail } from '../../../../shared/model';
import { toLocalFileError } from '../../base/files/file-errors';
import type { NodeFiles } from '../../base/files/files';
import { locateLog, type LocateClient } from './locate';

function container(overrides: Partial<ContainerDetail>): ContainerDetail {
  return {
    id: 'c1',
    podSandboxId: 'p1',
    name: 'app',
    attempt: 0,
    image: 'busybox',
    imageRef: 'sha256:1',
    state: 'running',
    createdAt: 0,
    labels: {},
    annotations: {},
    reason: '',
    message: '',
    mounts: [],
    logPath: '/var/log/pods/ns_web_uid/app/0.log',
    info: {},
    ...overrides,
  };
}

const pod: PodSandboxDetail = {
  id: 'p1',
  name: 'web',
  namespace: 'ns',
  uid: 'uid',
  attempt: 0,
  state: 'ready',
  createdAt: 0,
  labels: {},
  annotations: {},
  runtimeHandler: '',
  additionalIps: [],
  info: { info: { config: { log_directory: '/var/log/pods/ns_web_uid' } } },
};

function clientOf(containers: readonly ContainerDetail[]): LocateClient {
  return {
    containerStatus: (id) => {
      const found = containers.find((candidate) => candidate.id === id);
      return found === undefined
        ? Promise.reject(new AppError({ code: 'not-found', message: `no container ${id}` }))
        : Promise.resolve(found);
    },
    podStatus: () => Promise.resolve(pod),
    listContainers: () => Promise.resolve([...containers]),
  };
}

function filesWith(existing: readonly string[]): NodeFiles {
  return {
    transport: 'file',
    open: () => Promise.reject(new Error('not used')),
    exists: (path) => Promise.resolve(existing.includes(path)),
    follow: () => ({ dispose: () => undefined }),
    makeDirectory: () => Promise.reject(new Error('not used')),
  };
}

describe('locateLog', () => {
  it('puts a relative log path under the pod’s log directory', async () => {
    const client = clientOf([container({ logPath: 'app/0.log' })]);
    const location = await locateLog(client, filesWith([]), 'c1', false);
    expect(location).toMatchObject({
      path: '/var/log/pods/ns_web_uid/app/0.log',
      podName: 'web',
      namespace: 'ns',
      running: true,
    });
  });

  it('says when the runtime keeps no log', async () => {
    const client = clientOf([container({ logPath: '' })]);
    await expect(locateLog(client, filesWith([]), 'c1', false)).rejects.toMatchObject({
      code: 'not-found',
      message: 'The runtime keeps no log file for app.',
    });
  });

  it('finds the previous attempt by name and attempt in the same pod', async () => {
    const client = clientOf([
      container({ id: 'c0', attempt: 0, state: 'exited', logPath: '/logs/app/0.log' }),
      container({ id: 'c1', attempt: 1, logPath: '/logs/app/1.log' }),
    ]);
    expect(await locateLog(client, filesWith([]), 'c1', true)).toMatchObject({
      containerId: 'c0',
      path: '/logs/app/0.log',
      attempt: 0,
      running: false,
    });
  });

  it('falls back to the file the previous attempt left, and says when there is none', async () => {
    const client = clientOf([container({ id: 'c2', attempt: 2, logPath: '/logs/app/2.log' })]);
    expect(await locateLog(client, filesWith(['/logs/app/1.log']), 'c2', true)).toMatchObject({
      path: '/logs/app/1.log',
      attempt: 1,
    });
    await expect(locateLog(client, filesWith([]), 'c2', true)).rejects.toMatchObject({
      code: 'not-found',
    });
  });
});

describe('toLocalFileError', () => {
  it('names the path and what to do', () => {
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    expect(toLocalFileError(denied, '/var/log/pods/x/0.log')).toMatchObject({
      code: 'permission-denied',
      message: expect.stringContaining('/var/log/pods/x/0.log') as string,
      hint: expect.stringContaining('root') as string,
    });
    const missing = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    expect(toLocalFileError(missing, '/x.log').code).toBe('not-found');
  });
});
