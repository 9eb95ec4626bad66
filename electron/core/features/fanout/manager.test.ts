import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { Emitter } from '../../../../shared/event';
import type { Container, FanoutUpdate, NodesDelta, NodeStatus } from '../../../../shared/model';
import type { NodeManager } from '../nodes';
import { fakeContainer, fakePod } from '../nodes/testing/fake-node-client';
import { FanoutManager } from './manager';
import { FanoutServiceImpl } from './service';

const encode = (text: string) => new TextEncoder().encode(text);

interface FakeNode {
  readonly status: NodeStatus;
  readonly containers: Container[];
  exec(containerId: string, cmd: readonly string[], signal?: AbortSignal): Promise<string>;
  removed?: Set<string>;
}

function status(nodeId: string, state: NodeStatus['state'] = 'connected'): NodeStatus {
  return { nodeId, name: nodeId, kind: 'local', endpoint: '', origin: 'discovered', state };
}

function fakeNodes(nodes: FakeNode[]) {
  const changed = new Emitter<NodesDelta>();
  let statuses = nodes.map((node) => node.status);
  const find = (nodeId: string) => {
    const node = nodes.find((candidate) => candidate.status.nodeId === nodeId);
    if (node === undefined) throw new AppError({ code: 'not-found', message: 'no node' });
    return node;
  };
  const manager = {
    statuses: () => statuses,
    nodeName: (nodeId: string) => nodeId,
    onDidChange: changed.event,
    dialer: () => {
      throw new Error('no streams here');
    },
    client: (nodeId: string) => {
      const node = find(nodeId);
      return {
        listContainers: () => Promise.resolve(node.containers),
        listPods: () => Promise.resolve([fakePod('p1'), fakePod('p2')]),
        execSync: async (
          containerId: string,
          cmd: readonly string[],
          _timeout: number,
          options: { signal?: AbortSignal },
        ) => ({
          stdout: encode(await node.exec(containerId, cmd, options.signal)),
          stderr: new Uint8Array(),
          exitCode: 0,
        }),
        containerStatus: (containerId: string) =>
          node.removed?.has(containerId) === true
            ? Promise.reject(new AppError({ code: 'not-found', message: 'gone' }))
            : Promise.resolve({ ...fakeContainer(containerId, 'p1'), reason: '', message: '' }),
      };
    },
  } as unknown as NodeManager;
  return {
    manager,
    drop(nodeId: string) {
      statuses = statuses.map((s) => (s.nodeId === nodeId ? { ...s, state: 'reconnecting' } : s));
      const upserted = statuses.filter((s) => s.nodeId === nodeId);
      changed.fire({ reset: false, upserted, removed: [] });
    },
  };
}

function containers(prefix: string, count: number, labels = { app: 'web' }): Container[] {
  return Array.from({ length: count }, (_, index) =>
    fakeContainer(`${prefix}${index}`, index % 2 === 0 ? 'p1' : 'p2', {
      name: `web-${index}`,
      labels,
    }),
  );
}

function recorder() {
  const updates: FanoutUpdate[] = [];
  return {
    updates,
    sink: { next: (update: FanoutUpdate) => updates.push(update), error: () => undefined },
  };
}

const signal = new AbortController().signal;

describe('FanoutManager', () => {
  it('runs every match, never more at once than the fan-out, and groups identical outputs', async () => {
    let active = 0;
    let most = 0;
    const exec = async (containerId: string) => {
      active += 1;
      most = Math.max(most, active);
      await new Promise((resolve) => setImmediate(resolve));
      active -= 1;
      return containerId === 'a3' ? 'other\n' : 'same\n';
    };
    const { manager: nodes } = fakeNodes([
      { status: status('a'), containers: containers('a', 6), exec },
      { status: status('b'), containers: containers('b', 6), exec },
    ]);
    const fanout = new FanoutManager({ nodes });
    const run = await fanout.start(
      {
        targets: { kind: 'labels', selector: 'app=web' },
        command: ['hostname'],
        mode: 'auto',
        timeoutSeconds: 5,
        concurrency: 3,
      },
      signal,
    );
    expect(run.method.method).toBe('exec-sync');
    await fanout.settled(run.runId);
    const { updates, sink } = recorder();
    fanout.subscribe(run.runId, sink).dispose();
    const rows = updates[0]?.rows ?? [];
    expect(rows).toHaveLength(12);
    expect(most).toBe(3);
    expect(rows.every((row) => row.state === 'exited' && row.exitCode === 0)).toBe(true);
    const digests = new Set(rows.map((row) => row.outputDigest));
    expect(digests.size).toBe(2);
    expect(rows.find((row) => row.containerId === 'a3')?.stdout.text).toBe('other\n');
    expect(updates[0]?.run.state).toBe('done');
    fanout.dispose();
  });

  it('cancels: queued rows never run, running ones end as cancelled', async () => {
    const started: string[] = [];
    const exec = (containerId: string, _cmd: readonly string[], abort?: AbortSignal) => {
      started.push(containerId);
      return new Promise<string>((_resolve, reject) =>
        abort?.addEventListener('abort', () =>
          reject(new AppError({ code: 'cancelled', message: 'x' })),
        ),
      );
    };
    const { manager: nodes } = fakeNodes([
      { status: status('a'), containers: containers('a', 5), exec },
    ]);
    const fanout = new FanoutManager({ nodes });
    const run = await fanout.start(
      {
        targets: { kind: 'name', pattern: '^web-' },
        command: ['sleep', '100'],
        mode: 'sync',
        timeoutSeconds: 0,
        concurrency: 2,
      },
      signal,
    );
    fanout.cancel(run.runId);
    await fanout.settled(run.runId);
    const { updates, sink } = recorder();
    fanout.subscribe(run.runId, sink);
    const rows = updates[0]?.rows ?? [];
    expect(started).toHaveLength(2);
    expect(rows.map((row) => row.state).sort()).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(rows.filter((row) => row.reason === 'Cancelled before it ran.')).toHaveLength(3);
    expect(updates[0]?.run.state).toBe('cancelled');
    fanout.dispose();
  });

  it('shows a container removed mid-run, and a dropped node, as rows with reasons', async () => {
    const removed = new Set<string>();
    let release: () => void = () => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const execA = (containerId: string) => {
      if (containerId !== 'a1') return Promise.resolve('ok');
      removed.add('a1');
      return Promise.reject(new AppError({ code: 'unknown', message: 'container not running' }));
    };
    const execB = async (_id: string, _cmd: readonly string[], abort?: AbortSignal) => {
      await new Promise<void>((resolve, reject) => {
        abort?.addEventListener('abort', () =>
          reject(new AppError({ code: 'connection-lost', message: 'x' })),
        );
        void hold.then(resolve);
      });
      return 'late';
    };
    const fake = fakeNodes([
      { status: status('a'), containers: containers('a', 3), exec: execA, removed },
      { status: status('b'), containers: containers('b', 2), exec: execB },
    ]);
    const fanout = new FanoutManager({ nodes: fake.manager });
    const run = await fanout.start(
      {
        targets: { kind: 'labels', selector: 'app' },
        command: ['true'],
        mode: 'sync',
        timeoutSeconds: 5,
        concurrency: 8,
      },
      signal,
    );
    fake.drop('b');
    release();
    await fanout.settled(run.runId);
    const rows = fanout
      .exportJsonLines(run.runId)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.find((row) => row.containerId === 'a1')).toMatchObject({
      state: 'vanished',
      reason: 'The container was removed while the command ran.',
    });
    expect(rows.filter((row) => row.nodeId === 'b').map((row) => row.state)).toEqual([
      'vanished',
      'vanished',
    ]);
    expect(String(rows.find((row) => row.nodeId === 'b')?.reason)).toMatch(
      /^b dropped \(reconnecting\)/,
    );
    expect(rows.filter((row) => row.state === 'exited')).toHaveLength(2);
    fanout.dispose();
  });

  it('names the node it could not search, and a chosen container that is gone', async () => {
    const fake = fakeNodes([
      { status: status('a'), containers: containers('a', 1), exec: () => Promise.resolve('x') },
      { status: status('off', 'disconnected'), containers: [], exec: () => Promise.resolve('') },
    ]);
    const fanout = new FanoutManager({ nodes: fake.manager });
    const rows = await fanout.preview(
      {
        kind: 'selection',
        containers: [
          { nodeId: 'a', containerId: 'a0' },
          { nodeId: 'a', containerId: 'zz' },
          { nodeId: 'off', containerId: 'q' },
        ],
      },
      signal,
    );
    expect(rows.map((row) => [row.key, row.state, row.reason])).toEqual([
      ['a/zz', 'vanished', 'The container is gone: the runtime no longer lists it.'],
      ['a/a0', 'queued', undefined],
      ['off/', 'vanished', 'off is disconnected.'],
    ]);
    fanout.dispose();
  });
});

describe('FanoutServiceImpl', () => {
  const service = new FanoutServiceImpl(new FanoutManager({ nodes: fakeNodes([]).manager }));
  const targets = { kind: 'labels', selector: 'app=web' } as const;

  it('refuses unbounded or malformed requests before any node is asked', async () => {
    await expect(service.start({ targets, command: [] })).rejects.toThrow(/command is empty/);
    await expect(service.start({ targets, command: ['x'], concurrency: 33 })).rejects.toThrow(
      /concurrency must be 1…32/,
    );
    await expect(service.start({ targets, command: ['x'], mode: 'fast' as never })).rejects.toThrow(
      /mode must be/,
    );
    await expect(
      service.start({ targets: { kind: 'name', pattern: '(?<=x)' }, command: ['x'] }),
    ).rejects.toThrow(/not a regular expression/);
    await expect(service.preview({ kind: 'selection', containers: [] })).rejects.toThrow(
      /No container is selected/,
    );
    expect(() => service.cancel('nope')).toThrow(/not kept any more/);
  });

  it('says no container matches, with why', async () => {
    await expect(service.start({ targets, command: ['x'] })).rejects.toThrow(
      /No running container matches/,
    );
  });
});
