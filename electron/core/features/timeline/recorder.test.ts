import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import { Emitter } from '../../../../shared/event';
import { toDisposable } from '../../../../shared/lifecycle';
import type {
  Container,
  ContainerDetail,
  NodeStatus,
  NodesDelta,
  OnNode,
  PodSandbox,
  ResourceDelta,
  TimelineEvent,
  TimelineUpdate,
} from '../../../../shared/model';
import { timelineFileName } from './file';
import { TimelineRecorder, type TimelineNodes } from './recorder';

const nodeId = 'node-a';

function pod(id: string, state: PodSandbox['state'] = 'ready'): OnNode<PodSandbox> {
  return {
    id,
    name: `pod-${id}`,
    namespace: 'default',
    uid: id,
    attempt: 0,
    state,
    createdAt: 1000,
    labels: {},
    annotations: {},
    runtimeHandler: '',
    nodeId,
  };
}

function container(
  id: string,
  state: Container['state'],
  attempt = 0,
  podId = 'p1',
): OnNode<Container> {
  return {
    id,
    podSandboxId: podId,
    name: 'app',
    attempt,
    image: 'busybox',
    imageRef: 'sha256:1',
    state,
    createdAt: 2000 + attempt,
    labels: {},
    annotations: {},
    nodeId,
  };
}

function delta(
  change: {
    reset?: boolean;
    pods?: OnNode<PodSandbox>[];
    containers?: OnNode<Container>[];
    removedContainers?: string[];
    removedPods?: string[];
  },
  updatedAt = 5000,
): ResourceDelta {
  return {
    nodeId,
    reset: change.reset ?? false,
    pods: { upserted: change.pods ?? [], removed: change.removedPods ?? [] },
    containers: { upserted: change.containers ?? [], removed: change.removedContainers ?? [] },
    images: { upserted: [], removed: [] },
    updatedAt,
  };
}

/** A node manager with one connected node whose deltas the test sends. */
class FakeNodes implements TimelineNodes {
  readonly changes = new Emitter<NodesDelta>();
  sink: EventSink<ResourceDelta> | undefined;
  state: NodeStatus['state'] = 'connected';
  updates: 'events' | 'polling' = 'events';
  readonly details = new Map<string, Partial<ContainerDetail>>();
  /** What the runtime's events said of a container (the watcher's RecentStatuses). */
  readonly told = new Map<
    string,
    Pick<ContainerDetail, 'state' | 'reason' | 'message'> & Partial<ContainerDetail>
  >();
  statusCalls = 0;

  statuses(): readonly NodeStatus[] {
    return [this.status()];
  }

  status(): NodeStatus {
    return { nodeId, name: 'a', state: this.state, updates: this.updates } as NodeStatus;
  }

  onDidChange(listener: (delta: NodesDelta) => void) {
    return this.changes.event(listener);
  }

  watchResources(id: string, sink: EventSink<ResourceDelta>) {
    if (id !== nodeId || this.state !== 'connected') {
      throw new AppError({ code: 'failed-precondition', message: 'Not connected.' });
    }
    this.sink = sink;
    return toDisposable(() => {
      if (this.sink === sink) this.sink = undefined;
    });
  }

  client() {
    return {
      containerStatus: (id: string): Promise<ContainerDetail> => {
        this.statusCalls += 1;
        const detail = this.details.get(id);
        if (detail === undefined) {
          return Promise.reject(new AppError({ code: 'not-found', message: 'gone' }));
        }
        return Promise.resolve({ reason: '', message: '', ...detail } as ContainerDetail);
      },
    };
  }

  recentStatus(id: string, containerId: string) {
    return id === nodeId ? this.told.get(containerId) : undefined;
  }

  send(change: ResourceDelta): void {
    if (this.sink === undefined) throw new Error('nobody subscribed');
    this.sink.next(change);
  }
}

function kinds(events: readonly TimelineEvent[]): string[] {
  return events.map((event) => `${event.kind}${event.containerId ? `:${event.containerId}` : ''}`);
}

describe('TimelineRecorder', () => {
  let dir: string;
  let nodes: FakeNodes;
  const recorders: TimelineRecorder[] = [];

  const start = async (options: { maxEvents?: number; maxFileBytes?: number } = {}) => {
    const recorder = new TimelineRecorder({ nodes, configDir: dir, saveDelayMs: 0, ...options });
    recorders.push(recorder);
    await recorder.ready;
    return recorder;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-timeline-'));
    nodes = new FakeNodes();
  });

  afterEach(async () => {
    for (const recorder of recorders.splice(0)) recorder.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('takes what is there at the first look as it is, then records each transition once', async () => {
    const recorder = await start();
    nodes.send(delta({ reset: true, pods: [pod('p1')], containers: [container('c0', 'running')] }));
    nodes.details.set('c1', {
      startedAt: 6100,
      finishedAt: 6900,
      exitCode: 137,
      reason: 'OOMKilled',
    });
    // From the event stream: created, then started, then exited.
    nodes.send(delta({ containers: [container('c1', 'created')] }, 6000));
    nodes.send(delta({ containers: [container('c1', 'running')] }, 6100));
    nodes.send(delta({ containers: [container('c1', 'exited')] }, 6950));
    // The consistency check's list says the same once more, then a reset after a reconnect.
    nodes.send(delta({ containers: [container('c1', 'exited')] }, 7000));
    nodes.send(
      delta({
        reset: true,
        pods: [pod('p1')],
        containers: [container('c0', 'running'), container('c1', 'exited')],
      }),
    );
    await recorder.settled();
    expect(kinds(recorder.list())).toEqual(['created:c1', 'started:c1', 'exited:c1']);
    const exited = recorder.list()[2];
    expect(exited).toMatchObject({
      time: 6900,
      exitCode: 137,
      reason: 'OOMKilled',
      podName: 'pod-p1',
      namespace: 'default',
      containerName: 'app',
      source: 'events',
    });
    expect(recorder.list()[1]?.time).toBe(6100);
  });

  it('times a start and an exit from what the event said, without asking the runtime', async () => {
    const recorder = await start();
    nodes.send(delta({ reset: true, pods: [pod('p1')], containers: [container('c1', 'created')] }));
    nodes.told.set('c1', { state: 'running', startedAt: 6100, reason: '', message: '' });
    nodes.send(delta({ containers: [container('c1', 'running')] }, 6200));
    await recorder.settled();
    nodes.told.set('c1', {
      state: 'exited',
      startedAt: 6100,
      finishedAt: 6900,
      exitCode: 137,
      reason: 'OOMKilled',
      message: '',
    });
    nodes.send(delta({ containers: [container('c1', 'exited')] }, 7000));
    // An event's word that does not fit the change (a poll found c2 exited): asked.
    nodes.told.set('c2', { state: 'running', startedAt: 100, reason: '', message: '' });
    nodes.details.set('c2', { startedAt: 100, finishedAt: 200, exitCode: 3 });
    nodes.send(delta({ containers: [container('c2', 'exited')] }, 7100));
    await recorder.settled();
    expect(kinds(recorder.list())).toEqual([
      'started:c1',
      'exited:c1',
      'created:c2',
      'started:c2',
      'exited:c2',
    ]);
    expect(recorder.list()[0]?.time).toBe(6100);
    expect(recorder.list()[1]).toMatchObject({ time: 6900, exitCode: 137, reason: 'OOMKilled' });
    expect(recorder.list()[4]).toMatchObject({ time: 200, exitCode: 3, reason: 'Error' });
    expect(nodes.statusCalls).toBe(1);
  });

  it('appends new events to the file, and writes it anew within the cap once it is full', async () => {
    const path = join(dir, timelineFileName);
    const cap = 4000;
    const recorder = await start({ maxFileBytes: cap });
    nodes.send(delta({ reset: true, pods: [pod('p1')] }));
    nodes.send(delta({ containers: [container('c0', 'created')] }));
    await recorder.settled();
    await recorder.saveNow();
    const firstLines = (await readFile(path, 'utf8')).split('\n');
    for (let index = 1; index < 40; index += 1) {
      nodes.send(delta({ containers: [container(`c${index}`, 'created')] }));
      await recorder.settled();
      await recorder.saveNow();
      const text = await readFile(path, 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(cap);
      if (index === 1) expect(text.startsWith(firstLines.join('\n'))).toBe(true);
    }
    recorder.dispose();
    const again = await start({ maxFileBytes: cap });
    const held = again.list();
    expect(held.at(-1)?.containerId).toBe('c39');
    // Consecutive, newest last, none twice: what fitted.
    const seqs = held.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, at) => (seqs[0] ?? 0) + at));
    expect(held.length).toBeGreaterThan(5);
    expect(held.length).toBeLessThan(40);
  });

  it('records a container first seen exited by a poll as created, started and exited', async () => {
    nodes.updates = 'polling';
    const recorder = await start();
    nodes.send(delta({ reset: true, pods: [pod('p1')] }));
    nodes.details.set('c2', { startedAt: 3000, finishedAt: 3500, exitCode: 1 });
    nodes.details.set('c3', { exitCode: 128, reason: 'StartError' });
    nodes.send(delta({ containers: [container('c2', 'exited', 1), container('c3', 'exited')] }));
    await recorder.settled();
    expect(kinds(recorder.list())).toEqual([
      'created:c2',
      'started:c2',
      'exited:c2',
      'created:c3',
      'exited:c3',
    ]);
    expect(recorder.list()[2]).toMatchObject({
      reason: 'Error',
      exitCode: 1,
      attempt: 1,
      source: 'polling',
    });
    expect(recorder.list()[4]).toMatchObject({ reason: 'StartError' });
  });

  it('records pods becoming ready and not ready, and removals with the names they had', async () => {
    const recorder = await start();
    nodes.send(delta({ reset: true }));
    nodes.send(delta({ pods: [pod('p1')] }));
    nodes.send(delta({ pods: [pod('p1', 'notready')], containers: [container('c1', 'exited')] }));
    nodes.send(delta({ removedContainers: ['c1'], removedPods: ['p1'] }));
    await recorder.settled();
    expect(kinds(recorder.list())).toEqual([
      'pod-ready',
      'pod-notready',
      'created:c1',
      'started:c1',
      'exited:c1',
      'removed:c1',
      'pod-removed',
    ]);
    // The runtime no longer had c1 to ask: the start and exit are there, timed as seen.
    expect(recorder.list()[4]).toMatchObject({ kind: 'exited', time: 5000 });
    expect(recorder.list()[4]).not.toHaveProperty('reason');
    expect(recorder.list()[4]?.exitCode).toBeUndefined();
    expect(recorder.list()[6]).toMatchObject({ podName: 'pod-p1', time: 5000 });
    expect(recorder.list()[0]?.time).toBe(1000);
  });

  it('keeps the newest events in memory and sends them whole to a new subscriber', async () => {
    const recorder = await start({ maxEvents: 5 });
    nodes.send(delta({ reset: true, pods: [pod('p1')] }));
    for (let index = 0; index < 4; index += 1) {
      nodes.send(delta({ containers: [container(`c${index}`, 'created', index)] }));
    }
    nodes.send(delta({ removedContainers: ['c0', 'c1', 'c2'] }));
    await recorder.settled();
    expect(kinds(recorder.list())).toEqual([
      'created:c2',
      'created:c3',
      'removed:c0',
      'removed:c1',
      'removed:c2',
    ]);
    const seqs = recorder.list().map((event) => event.seq);
    expect(seqs).toEqual([3, 4, 5, 6, 7]);
    const updates: TimelineUpdate[] = [];
    recorder.subscribe({ next: (update) => updates.push(update), error: () => undefined });
    expect(updates).toEqual([{ reset: true, events: recorder.list() }]);
  });

  it('persists across a restart, under the file cap, and diffs the first look against it', async () => {
    const first = await start();
    nodes.send(
      delta({ reset: true, pods: [pod('p1')], containers: [container('old', 'running')] }),
    );
    for (let index = 0; index < 40; index += 1) {
      nodes.send(delta({ containers: [container(`c${index}`, 'created')] }));
    }
    nodes.send(delta({ containers: [container('c39', 'running')] }));
    await first.settled();
    await first.saveNow();
    const path = join(dir, timelineFileName);
    const whole = (await stat(path)).size;
    first.dispose();

    // A second Porthole: c39 exited and c38 was removed meanwhile.
    nodes.sink = undefined;
    nodes.details.set('c39', { startedAt: 6000, finishedAt: 8000, exitCode: 0 });
    const second = await start();
    expect(second.list()).toHaveLength(41);
    const rows = [...Array(38).keys()].map((index) => container(`c${index}`, 'created'));
    nodes.send(
      delta({
        reset: true,
        pods: [pod('p1')],
        containers: [container('old', 'running'), ...rows, container('c39', 'exited')],
      }),
    );
    await second.settled();
    expect(kinds(second.list().slice(41))).toEqual(['exited:c39', 'removed:c38']);
    expect(second.list().at(-2)).toMatchObject({ reason: 'Completed', time: 8000 });
    expect(second.list().at(-1)?.seq).toBe(43);
    await second.saveNow();
    second.dispose();

    // A small cap keeps the newest events that fit.
    const cap = Math.floor(whole / 2);
    const third = await start({ maxFileBytes: cap });
    await third.saveNow();
    expect((await stat(path)).size).toBeLessThanOrEqual(cap);
    third.dispose();
    const fourth = await start();
    expect(fourth.list().length).toBeGreaterThan(10);
    expect(fourth.list().length).toBeLessThan(43);
    expect(fourth.list().at(-1)?.seq).toBe(43);
  });

  it('skips unreadable lines and leaves a file that is not a timeline alone', async () => {
    const path = join(dir, timelineFileName);
    const good: TimelineEvent = {
      seq: 9,
      nodeId,
      time: 1,
      seenAt: 1,
      kind: 'pod-ready',
      source: 'events',
      podId: 'p1',
      podName: 'pod-p1',
      namespace: 'default',
    };
    await writeFile(path, `{"version":1}\n${JSON.stringify(good)}\nnot json\n{"seq":"x"}\n`);
    const recorder = await start();
    expect(recorder.list()).toEqual([good]);
    recorder.dispose();

    await writeFile(path, 'my notes\n');
    const other = await start();
    expect(other.list()).toEqual([]);
    await expect(other.saveNow()).rejects.toThrow(/not a Porthole timeline/);
    expect(await readFile(path, 'utf8')).toBe('my notes\n');
  });

  it('clears the history for every subscriber and in the file', async () => {
    const recorder = await start();
    nodes.send(delta({ reset: true }));
    nodes.send(delta({ pods: [pod('p1')] }));
    await recorder.settled();
    const updates: TimelineUpdate[] = [];
    recorder.subscribe({ next: (update) => updates.push(update), error: () => undefined });
    await recorder.clear();
    expect(updates.at(-1)).toEqual({ reset: true, events: [] });
    recorder.dispose();
    expect((await start()).list()).toEqual([]);
  });

  it('follows a node again once it is connected again, recording what changed meanwhile', async () => {
    const recorder = await start();
    nodes.send(delta({ reset: true, pods: [pod('p1')], containers: [container('c1', 'running')] }));
    // As the watcher fails its subscriptions: each sink hears the error and is dropped.
    nodes.sink?.error(new AppError({ code: 'connection-lost', message: 'gone' }));
    nodes.sink = undefined;
    nodes.state = 'disconnected';
    nodes.changes.fire({ reset: false, upserted: [nodes.status()], removed: [] });
    nodes.state = 'connected';
    nodes.changes.fire({ reset: false, upserted: [nodes.status()], removed: [] });
    nodes.details.set('c1', { startedAt: 100, finishedAt: 200, exitCode: 2 });
    nodes.send(delta({ reset: true, pods: [pod('p1')], containers: [container('c1', 'exited')] }));
    await recorder.settled();
    expect(kinds(recorder.list())).toEqual(['exited:c1']);
  });
});
