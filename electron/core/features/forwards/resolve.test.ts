import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { PodSandbox } from '../../../../shared/model';
import { findReadyPod, identityOf, type ForwardRuntime } from './resolve';

function pod(id: string, over: Partial<PodSandbox> = {}): PodSandbox {
  return {
    id,
    name: 'web',
    namespace: 'ns',
    uid: id,
    attempt: 0,
    state: 'ready',
    createdAt: 1,
    labels: {},
    annotations: {},
    runtimeHandler: '',
    ...over,
  };
}

function runtime(pods: PodSandbox[]): ForwardRuntime {
  return {
    listPods: (filter = {}) =>
      Promise.resolve(
        pods.filter(
          (p) =>
            (filter.state === undefined || p.state === filter.state) &&
            Object.entries(filter.labels ?? {}).every(([k, v]) => p.labels[k] === v),
        ),
      ),
    podStatus: (id) => {
      const found = pods.find((p) => p.id === id);
      return found
        ? Promise.resolve({ ...found, additionalIps: [], info: {} })
        : Promise.reject(new AppError({ code: 'not-found', message: 'no' }));
    },
    portForward: () => Promise.reject(new Error('unused')),
  };
}

describe('findReadyPod', () => {
  it('picks the newest ready sandbox with the namespace and name', async () => {
    const pods = [
      pod('old', { createdAt: 1 }),
      pod('new', { createdAt: 3 }),
      pod('stopped', { createdAt: 4, state: 'notready' }),
      pod('elsewhere', { createdAt: 5, namespace: 'other' }),
    ];
    const found = await findReadyPod(
      runtime(pods),
      identityOf({ kind: 'pod', namespace: 'ns', name: 'web' }),
    );
    expect(found).toEqual({ podSandboxId: 'new', namespace: 'ns', name: 'web', uid: 'new' });
  });

  it('matches labels, optionally within a namespace', async () => {
    const pods = [
      pod('a', { labels: { app: 'x' }, namespace: 'one', createdAt: 2 }),
      pod('b', { labels: { app: 'x' }, namespace: 'two', createdAt: 1 }),
      pod('c', { labels: { app: 'y' }, createdAt: 9 }),
    ];
    const rt = runtime(pods);
    expect(
      (await findReadyPod(rt, identityOf({ kind: 'labels', labels: { app: 'x' } }))).podSandboxId,
    ).toBe('a');
    expect(
      (
        await findReadyPod(
          rt,
          identityOf({ kind: 'labels', labels: { app: 'x' }, namespace: 'two' }),
        )
      ).podSandboxId,
    ).toBe('b');
  });

  it('says which pod it could not find', async () => {
    await expect(
      findReadyPod(
        runtime([pod('a', { state: 'notready' })]),
        identityOf({ kind: 'sandbox', podSandboxId: 'a' }),
      ),
    ).rejects.toMatchObject({ code: 'not-found', message: 'No ready pod named sandbox a.' });
    await expect(
      findReadyPod(runtime([]), identityOf({ kind: 'labels', labels: { app: 'x' } })),
    ).rejects.toMatchObject({ message: 'No ready pod matches {app=x}.' });
  });
});
