/**
 * The debug manager's ownership rules against a scripted runtime and the real session
 * registry: a debug container goes with its last terminal, a kept one stays, one never
 * claimed goes after a while, one that can't be removed becomes a leftover, and a runtime
 * that ignores TARGET is caught and its container removed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { Container, ContainerDetail, PodSandboxDetail } from '../../../../shared/model';
import { localFiles } from '../../base/files';
import type { NodeClient } from '../nodes';
import { SessionRegistry } from '../sessions';
import { DebugManager } from './manager';

const nodeId = 'node-1';

function detail(id: string, extra: Partial<ContainerDetail> = {}): ContainerDetail {
  return {
    id,
    podSandboxId: 'pod-1',
    name: id,
    attempt: 0,
    image: 'app:1',
    imageRef: 'sha256:1',
    state: 'running',
    createdAt: 1,
    labels: {},
    annotations: {},
    reason: '',
    message: '',
    mounts: [],
    logPath: '',
    info: {
      info: {
        runtimeSpec: { process: { args: ['/app'] }, linux: { namespaces: [{ type: 'pid' }] } },
      },
    },
    ...extra,
  };
}

const pod: PodSandboxDetail = {
  id: 'pod-1',
  name: 'web',
  namespace: 'shop',
  uid: 'u',
  attempt: 0,
  state: 'ready',
  createdAt: 0,
  labels: {},
  annotations: {},
  runtimeHandler: '',
  additionalIps: [],
  info: {},
};

/** A runtime with one target container; debug containers are added as they are created. */
class FakeRuntime {
  readonly containers = new Map<string, ContainerDetail>([['target', detail('target')]]);
  readonly removed: string[] = [];
  /** What `cat /proc/1/cmdline` prints in a debug container (the target's, if TARGET works). */
  pid1 = '/app\0';
  failRemove = false;
  private next = 0;

  readonly client = {
    containerStatus: (id: string) => {
      const found = this.containers.get(id);
      return found === undefined
        ? Promise.reject(new AppError({ code: 'not-found', message: 'no such container' }))
        : Promise.resolve(found);
    },
    podStatus: () => Promise.resolve(pod),
    imageStatus: () => Promise.resolve({ id: 'busybox' }),
    pullImage: () => Promise.resolve('busybox'),
    createContainer: (
      _pod: string,
      config: { metadata?: { name?: string }; labels?: Record<string, string> },
    ) => {
      const id = `debug-${++this.next}`;
      this.containers.set(
        id,
        detail(id, { name: config.metadata?.name ?? id, labels: config.labels ?? {} }),
      );
      return Promise.resolve(id);
    },
    startContainer: () => Promise.resolve(),
    execSync: () =>
      Promise.resolve({
        stdout: new TextEncoder().encode(this.pid1),
        stderr: new Uint8Array(),
        exitCode: 0,
      }),
    stopContainer: () => Promise.resolve(),
    removeContainer: (id: string) => {
      if (this.failRemove)
        return Promise.reject(new AppError({ code: 'unavailable', message: 'node gone' }));
      this.containers.delete(id);
      this.removed.push(id);
      return Promise.resolve();
    },
    listContainers: (): Promise<Container[]> => Promise.resolve([...this.containers.values()]),
    listPods: () => Promise.resolve([pod]),
  };
}

const managers: DebugManager[] = [];
afterEach(() => {
  for (const manager of managers.splice(0)) manager.dispose();
});

function setup(unclaimedMs = 60_000) {
  const runtime = new FakeRuntime();
  const sessions = new SessionRegistry({ tickMs: 60_000 });
  const manager = new DebugManager({
    nodes: {
      client: () => runtime.client as unknown as NodeClient,
      nodeName: () => 'lab',
      refreshResources: () => Promise.resolve(),
    },
    sessions,
    files: () => localFiles,
    unclaimedMs,
  });
  managers.push(manager);
  const terminal = (containerId: string) =>
    sessions.register({
      kind: 'exec',
      nodeId,
      nodeName: 'lab',
      target: { description: containerId, containerId },
      kill: () => undefined,
    });
  return { runtime, sessions, manager, terminal };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('DebugManager', () => {
  it('removes a debug container when its last terminal ends', async () => {
    const { runtime, manager, terminal } = setup();
    const started = await manager.start({ nodeId, targetId: 'target', image: 'busybox' });
    const id = started.container.containerId;
    expect(started.targetPid).toBe(1);
    const first = terminal(id);
    const second = terminal(id);
    first.end({ state: 'ended', reason: 'closed' });
    expect(runtime.containers.has(id)).toBe(true);
    second.end({ state: 'ended', reason: 'closed' });
    await until(() => runtime.removed.includes(id), 'it is removed');
  });

  it('keeps a kept one, and lets it go once it is no longer kept and its terminal ends', async () => {
    const { runtime, manager, terminal } = setup();
    const started = await manager.start({ nodeId, targetId: 'target', image: 'b', keep: true });
    const id = started.container.containerId;
    terminal(id).end({ state: 'ended', reason: 'closed' });
    expect(await manager.list(nodeId)).toEqual([
      expect.objectContaining({ containerId: id, status: 'kept' }),
    ]);
    const again = terminal(id);
    await manager.keep(nodeId, id, false);
    again.end({ state: 'ended', reason: 'closed' });
    await until(() => runtime.removed.includes(id), 'it is removed');
  });

  it('removes one no terminal ever claimed', async () => {
    const { runtime, manager } = setup(20);
    const started = await manager.start({ nodeId, targetId: 'target', image: 'b' });
    await until(() => runtime.removed.includes(started.container.containerId), 'it is removed');
  });

  it('calls one it could not remove a leftover', async () => {
    const { runtime, manager, terminal } = setup();
    const started = await manager.start({ nodeId, targetId: 'target', image: 'b' });
    const id = started.container.containerId;
    runtime.failRemove = true;
    terminal(id).end({ state: 'failed', reason: 'node gone' });
    await expect
      .poll(async () => (await manager.list(nodeId)).map((c) => c.status))
      .toEqual(['leftover']);
    // The node is back and a terminal opens in it: it is ours again, and goes with it.
    runtime.failRemove = false;
    const again = terminal(id);
    expect((await manager.list(nodeId)).map((c) => c.status)).toEqual(['active']);
    again.end({ state: 'ended', reason: 'closed' });
    await until(() => runtime.removed.includes(id), 'it is removed');
  });

  it('catches a runtime that ignored TARGET, and removes what it made', async () => {
    const { runtime, manager } = setup();
    runtime.pid1 = 'sh\0';
    const error = await manager
      .start({ nodeId, targetId: 'target', image: 'b' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unimplemented', step: 'namespace' });
    expect(runtime.removed).toEqual(['debug-1']);
  });

  it('refuses to remove a container that is not a debug container', async () => {
    const { manager } = setup();
    await expect(manager.remove(nodeId, 'target')).rejects.toMatchObject({
      code: 'permission-denied',
    });
  });
});
