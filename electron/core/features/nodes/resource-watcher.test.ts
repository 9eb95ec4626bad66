import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { ResourceDelta } from '../../../../shared/model';
import { FakeNodeClient, fakeContainer, fakeImage, fakePod } from './testing/fake-node-client';
import { ResourceWatcher, type ResourceWatcherOptions } from './resource-watcher';
import { RowTable, sameContainerVersion } from './rows';

const timings = {
  pollIntervalMs: 2000,
  checkMinMs: 15_000,
  checkMaxMs: 60_000,
  checkPerRowMs: 100,
  eventsRetryMs: 10_000,
};

describe('RowTable', () => {
  it('returns new and changed rows and removed ids, by version, nothing for unchanged rows', () => {
    const table = new RowTable(sameContainerVersion);
    const row = (id: string, overrides: Parameters<typeof fakeContainer>[2] = {}) => ({
      ...fakeContainer(id, 'p1', overrides),
      nodeId: 'n1',
    });
    table.replaceAll([row('a'), row('b'), row('c')]);
    const delta = table.replaceAll([
      row('a'),
      row('b', { state: 'exited' }),
      row('d', { state: 'created' }),
    ]);
    expect(delta.upserted.map((r) => r.id)).toEqual(['b', 'd']);
    expect(delta.removed).toEqual(['c']);
  });
});

describe('ResourceWatcher', () => {
  let client: FakeNodeClient;
  let watchers: ResourceWatcher[];

  beforeEach(() => {
    vi.useFakeTimers();
    client = new FakeNodeClient('unix:///fake.sock');
    client.pods = [fakePod('p1')];
    client.containers = [fakeContainer('c1', 'p1')];
    client.images = [fakeImage('i1')];
    watchers = [];
  });

  afterEach(() => {
    for (const watcher of watchers) watcher.dispose();
    vi.useRealTimers();
  });

  function watch(
    useEvents: boolean,
    hooks: Pick<ResourceWatcherOptions, 'onHealth' | 'onEventsUnsupported'> = {},
  ) {
    const watcher = new ResourceWatcher({ nodeId: 'n1', client, useEvents, timings, ...hooks });
    watchers.push(watcher);
    const deltas: ResourceDelta[] = [];
    watcher.subscribe({ next: (d) => deltas.push(d), error: () => undefined });
    return { watcher, deltas };
  }

  it('first sends everything with reset: true, tagged with the node', async () => {
    const { deltas } = watch(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(deltas).toHaveLength(1);
    expect(deltas[0]).toMatchObject({
      nodeId: 'n1',
      reset: true,
      pods: { upserted: [{ id: 'p1', nodeId: 'n1' }], removed: [] },
      containers: { upserted: [{ id: 'c1', nodeId: 'n1' }] },
      images: { upserted: [{ id: 'i1' }] },
    });
  });

  it('polls every 2 s when there are no events and sends only what changed', async () => {
    const { deltas } = watch(false);
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(deltas).toHaveLength(1); // nothing changed: nothing sent

    client.containers = [fakeContainer('c1', 'p1', { state: 'exited' }), fakeContainer('c2', 'p1')];
    client.pods = [];
    await vi.advanceTimersByTimeAsync(2000);
    expect(deltas).toHaveLength(2);
    expect(deltas[1]).toMatchObject({
      reset: false,
      pods: { upserted: [], removed: ['p1'] },
      containers: { upserted: [{ id: 'c1', state: 'exited' }, { id: 'c2' }], removed: [] },
      images: { upserted: [], removed: [] },
    });
  });

  it('applies events from their payload, reads new rows alone, and checks now and then', async () => {
    const { deltas } = watch(true);
    await vi.advanceTimersByTimeAsync(0);
    const calls = client.listCalls;
    // No polling while events flow.
    await vi.advanceTimersByTimeAsync(5000);
    expect(client.listCalls).toBe(calls);

    // A stop: the row is updated from the event's own statuses, no list at all.
    const stopped = { ...fakeContainer('c1', 'p1', { state: 'exited' }), nodeId: 'n1' };
    client.containers = [fakeContainer('c1', 'p1', { state: 'exited' })];
    client.emit({
      containerId: 'c1',
      type: 'stopped',
      containers: [{ ...stopped, reason: '', message: '', mounts: [], logPath: '', info: {} }],
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.listCalls).toBe(calls);
    expect(deltas.at(-1)?.containers).toEqual({ upserted: [stopped], removed: [] });

    // A new container: read alone, by its id.
    client.containers.push(fakeContainer('c2', 'p1'));
    client.emit({ containerId: 'c2', type: 'created' });
    client.emit({ containerId: 'c2', type: 'started' });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.listCalls).toBe(calls);
    expect(client.calls.filter((call) => call === 'listContainers(id)')).toHaveLength(1);
    expect(deltas.at(-1)?.containers.upserted.map((c) => c.id)).toEqual(['c2']);

    client.emit({ containerId: 'c1', type: 'deleted' });
    await vi.advanceTimersByTimeAsync(0);
    expect(deltas.at(-1)?.containers).toEqual({ upserted: [], removed: ['c1'] });

    // Images have no events: the consistency check finds them.
    client.images.push(fakeImage('i2'));
    await vi.advanceTimersByTimeAsync(15_000);
    expect(client.listCalls).toBe(calls + 1);
    expect(deltas.at(-1)?.images.upserted.map((i) => i.id)).toEqual(['i2']);
  });

  it('keeps what an event said of a changed container, until a list reads it anew', async () => {
    const { watcher } = watch(true);
    await vi.advanceTimersByTimeAsync(0);
    const stopped = { ...fakeContainer('c1', 'p1', { state: 'exited' }), nodeId: 'n1' };
    client.emit({
      containerId: 'c1',
      type: 'stopped',
      containers: [
        {
          ...stopped,
          finishedAt: 4200,
          exitCode: 137,
          reason: 'OOMKilled',
          message: '',
          mounts: [],
          logPath: '',
          info: {},
        },
      ],
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(watcher.recentStatus('c1')).toEqual({
      state: 'exited',
      finishedAt: 4200,
      exitCode: 137,
      reason: 'OOMKilled',
      message: '',
    });
    // The runtime started it again, unannounced: the check's list has the word now.
    client.containers = [fakeContainer('c1', 'p1', { state: 'running' })];
    watcher.refresh();
    await vi.advanceTimersByTimeAsync(0);
    expect(watcher.recentStatus('c1')).toBeUndefined();
  });

  it('re-lists at the polling pace while a pod is not ready, whose removal may come unannounced', async () => {
    const { deltas } = watch(true);
    await vi.advanceTimersByTimeAsync(0);
    const calls = client.listCalls;

    // CRI-O's sandbox stop: an event with the pod's status, and then no event for its removal.
    client.pods = [fakePod('p1', { state: 'notready' })];
    client.emit({
      containerId: 'p1',
      type: 'stopped',
      pod: { ...fakePod('p1'), state: 'notready', additionalIps: [], info: {} },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(deltas.at(-1)?.pods.upserted).toMatchObject([{ id: 'p1', state: 'notready' }]);
    client.pods = [];
    client.containers = [];
    await vi.advanceTimersByTimeAsync(2000);
    expect(client.listCalls).toBe(calls + 1);
    expect(deltas.at(-1)).toMatchObject({
      pods: { upserted: [], removed: ['p1'] },
      containers: { upserted: [], removed: ['c1'] },
    });

    // Every pod ready again: back to the consistency check's pace.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(client.listCalls).toBe(calls + 1);
  });

  it('reads images only when asked (a pull, a remove) or at the check', async () => {
    const { watcher } = watch(true);
    await vi.advanceTimersByTimeAsync(0);
    const images = client.calls.filter((call) => call === 'listImages').length;
    await watcher.refreshNow();
    expect(client.calls.filter((call) => call === 'listImages')).toHaveLength(images);
    await watcher.refreshNow({ images: true });
    expect(client.calls.filter((call) => call === 'listImages')).toHaveLength(images + 1);
  });

  it('falls back to polling when the event stream is unimplemented', async () => {
    client.supportsEvents = false;
    const unsupported = vi.fn();
    const { watcher } = watch(true, { onEventsUnsupported: unsupported });
    await vi.advanceTimersByTimeAsync(0);
    expect(unsupported).toHaveBeenCalledOnce();
    expect(watcher.mode).toBe('polling');
    const calls = client.listCalls;
    await vi.advanceTimersByTimeAsync(4000);
    expect(client.listCalls).toBe(calls + 2);
  });

  it('polls while a broken event stream is retried, then uses events again', async () => {
    const { watcher } = watch(true);
    await vi.advanceTimersByTimeAsync(0);
    client.failEvents(new AppError({ code: 'unavailable', message: 'stream dropped' }));
    expect(watcher.mode).toBe('polling');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(watcher.mode).toBe('events');
    expect(client.eventWatchers).toBe(1);
  });

  it('polls for good when the stream ends at once with OK and no events (events off)', async () => {
    const unsupported = vi.fn();
    const { watcher } = watch(true, { onEventsUnsupported: unsupported });
    await vi.advanceTimersByTimeAsync(0);
    client.completeEvents();
    expect(watcher.mode).toBe('polling');
    expect(unsupported).toHaveBeenCalledOnce();
    const calls = client.listCalls;
    // Well past the retry interval: no new subscription, a poll every 2 s.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(client.eventSubscriptions).toBe(1);
    expect(client.listCalls).toBeGreaterThanOrEqual(calls + 15);
  });

  it('subscribes again when a stream that delivered events ends with OK', async () => {
    const { watcher } = watch(true);
    await vi.advanceTimersByTimeAsync(0);
    client.emit({ type: 'started' });
    client.completeEvents();
    expect(watcher.mode).toBe('polling');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(watcher.mode).toBe('events');
    expect(client.eventSubscriptions).toBe(2);
  });

  it('reports the runtime failing and recovering, and keeps polling', async () => {
    const health: (string | undefined)[] = [];
    const { deltas } = watch(false, { onHealth: (error) => health.push(error?.code) });
    await vi.advanceTimersByTimeAsync(0);
    client.failure = new AppError({ code: 'unavailable', message: 'down' });
    await vi.advanceTimersByTimeAsync(2000);
    client.failure = undefined;
    client.pods = [];
    await vi.advanceTimersByTimeAsync(2000);
    expect(health).toEqual([undefined, 'unavailable', undefined]);
    expect(deltas.at(-1)?.pods.removed).toEqual(['p1']);
  });

  it('gives a late subscriber the current state as a reset', async () => {
    const { watcher } = watch(false);
    await vi.advanceTimersByTimeAsync(0);
    const late: ResourceDelta[] = [];
    watcher.subscribe({ next: (d) => late.push(d), error: () => undefined });
    expect(late).toHaveLength(1);
    expect(late[0]?.reset).toBe(true);
  });

  it('refreshNow resolves after a refresh that sees the change', async () => {
    const { watcher, deltas } = watch(false);
    await vi.advanceTimersByTimeAsync(0);
    client.pods.push(fakePod('p2'));
    await watcher.refreshNow();
    expect(deltas.at(-1)?.pods.upserted.map((p) => p.id)).toEqual(['p2']);
  });

  it('stops every timer and stream on dispose', async () => {
    const { watcher } = watch(true);
    await vi.advanceTimersByTimeAsync(0);
    watcher.dispose();
    const calls = client.listCalls;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.listCalls).toBe(calls);
    expect(client.eventWatchers).toBe(0);
  });
});
