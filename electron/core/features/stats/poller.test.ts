import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import type {
  Container,
  ContainerStats,
  PodSandbox,
  PodStats,
  StatsUpdate,
} from '../../../../shared/model';
import { StatsPoller, type StatsClient } from './poller';

/** A runtime whose counters the test moves; failures switched on per call. */
class FakeStatsClient implements StatsClient {
  containerStats: ContainerStats[] = [];
  podStatsList: PodStats[] = [];
  pods: PodSandbox[] = [];
  containers: Pick<Container, 'id' | 'podSandboxId'>[] = [];
  containerStatsError: AppError | undefined;
  listPodStatsError: AppError | undefined;
  podStatsErrors = new Map<string, AppError>();
  hazard: string | undefined;
  readonly calls: string[] = [];

  podStatsHazard: StatsClient['podStatsHazard'] = () => Promise.resolve(this.hazard);

  listContainerStats: StatsClient['listContainerStats'] = () => {
    this.calls.push('listContainerStats');
    return this.containerStatsError !== undefined
      ? Promise.reject(this.containerStatsError)
      : Promise.resolve(stamped(this.containerStats));
  };

  listPodStats: StatsClient['listPodStats'] = () => {
    this.calls.push('listPodStats');
    return this.listPodStatsError !== undefined
      ? Promise.reject(this.listPodStatsError)
      : Promise.resolve(stamped(this.podStatsList));
  };

  listPods: StatsClient['listPods'] = () => {
    this.calls.push('listPods');
    return Promise.resolve(this.pods.filter((pod) => pod.state === 'ready'));
  };

  listContainers: StatsClient['listContainers'] = () => {
    this.calls.push('listContainers');
    return Promise.resolve(this.containers as Container[]);
  };

  podStats: StatsClient['podStats'] = (podSandboxId) => {
    this.calls.push(`podStats ${podSandboxId}`);
    const error = this.podStatsErrors.get(podSandboxId);
    if (error !== undefined) return Promise.reject(error);
    const stats = this.podStatsList.find((pod) => pod.podSandboxId === podSandboxId);
    return stats === undefined
      ? Promise.reject(new AppError({ code: 'not-found', message: 'no such pod' }))
      : Promise.resolve(stamped(stats));
  };

  count(call: string): number {
    return this.calls.filter((entry) => entry === call).length;
  }
}

const unimplemented = (): AppError =>
  new AppError({ code: 'unimplemented', message: 'ListPodSandboxStats is not implemented.' });
const noCgroup = (id: string): AppError =>
  new AppError({
    code: 'unknown',
    message: `failed to get cgroup metrics for sandbox ${id} because cgroupPath is empty`,
    detail: 'ListPodSandboxStats: UNKNOWN',
  });

/** Readings are stamped when the runtime answers (see `stamped`). */
const unstamped = 0;

function container(id: string, cpuNanos: number | undefined, memory = 1000): ContainerStats {
  return {
    containerId: id,
    name: `c-${id}`,
    ...(cpuNanos !== undefined && {
      cpu: { timestamp: unstamped, usageCoreNanoSeconds: cpuNanos },
      memory: { timestamp: unstamped, workingSetBytes: memory, usageBytes: memory * 2 },
    }),
  };
}

function pod(id: string, cpuNanos: number, name = `p-${id}`): PodStats {
  return {
    podSandboxId: id,
    name,
    namespace: 'default',
    cpu: { timestamp: unstamped, usageCoreNanoSeconds: cpuNanos },
    memory: { timestamp: unstamped, workingSetBytes: 4096 },
    containers: [],
  };
}

/** A copy of `value` with every reading's timestamp set to now, as the runtime would. */
function stamped<T>(value: T): T {
  const at = Date.now();
  return JSON.parse(
    JSON.stringify(value, (key, field: unknown) => (key === 'timestamp' ? at : field)),
  ) as T;
}

function readyPod(id: string, name = `p-${id}`): PodSandbox {
  return {
    id,
    name,
    namespace: 'default',
    uid: id,
    attempt: 0,
    state: 'ready',
    createdAt: 1,
    labels: {},
    annotations: {},
    runtimeHandler: '',
  };
}

class Recorder implements EventSink<StatsUpdate> {
  readonly updates: StatsUpdate[] = [];
  readonly errors: AppError[] = [];
  next(update: StatsUpdate): void {
    this.updates.push(update);
  }
  error(error: AppError): void {
    this.errors.push(error);
  }
  get samples() {
    return this.updates.flatMap((update) => update.samples);
  }
  get last() {
    return this.samples[this.samples.length - 1];
  }
}

describe('StatsPoller', () => {
  let client: FakeStatsClient;
  let poller: StatsPoller;
  // Fake timers move Date.now() too: the poller's clock and the runtime's stay in step.
  const now = (): number => Date.now();

  /** Runs the timers (and the polls they start) for `ms` of fake time. */
  async function tick(ms = 2000): Promise<void> {
    await vi.advanceTimersByTimeAsync(ms);
  }

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    client = new FakeStatsClient();
    poller = new StatsPoller({ client, now, timings: { intervalMs: 2000, historyMs: 10_000 } });
  });

  afterEach(() => {
    poller.dispose();
    vi.useRealTimers();
  });

  it('sends the history first, polls from the first subscriber, and stops with the last', async () => {
    client.containerStats = [container('a', 0)];
    const first = new Recorder();
    const subscription = poller.subscribe(first);
    expect(first.updates[0]).toEqual({
      reset: true,
      samples: [],
      intervalMs: 2000,
      historyMs: 10_000,
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(first.samples).toHaveLength(1);
    // One reading: memory, but no rate yet.
    expect(first.last?.containers).toEqual([
      { containerId: 'a', name: 'c-a', memoryWorkingSetBytes: 1000, memoryUsageBytes: 2000 },
    ]);

    client.containerStats = [container('a', 1e9)];
    await tick();
    expect(first.last?.containers[0]?.cpuPercent).toBe(50);

    const second = new Recorder();
    const later = poller.subscribe(second);
    expect(second.updates[0]?.reset).toBe(true);
    expect(second.updates[0]?.samples.map((s) => s.containers[0]?.cpuPercent)).toEqual([
      undefined,
      50,
    ]);

    subscription.dispose();
    expect(poller.isPolling).toBe(true);
    later.dispose();
    expect(poller.isPolling).toBe(false);
    const calls = client.count('listContainerStats');
    await tick(10_000);
    expect(client.count('listContainerStats')).toBe(calls);
  });

  it("sums a pod's containers when the runtime reports nothing for the pod (CRI-O)", async () => {
    // CRI-O under cgroupfs: the pod entry carries its containers but no CPU or memory.
    const bare = (id: string, containers: ContainerStats[]): PodStats => ({
      podSandboxId: id,
      name: `p-${id}`,
      namespace: 'default',
      containers,
    });
    const a = { ...container('a', 0, 1000), podSandboxId: 'p1' };
    const b = { ...container('b', 0, 3000), podSandboxId: 'p1' };
    client.containerStats = [a, b];
    client.podStatsList = [bare('p1', [a, b]), pod('p2', 0)];
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    // No CPU rate yet (one reading), memory already summed.
    expect(recorder.last?.pods.find((p) => p.podSandboxId === 'p1')).toEqual({
      podSandboxId: 'p1',
      name: 'p-p1',
      namespace: 'default',
      memoryWorkingSetBytes: 4000,
      memoryUsageBytes: 8000,
      source: 'containers',
    });
    const a2 = { ...container('a', 1e9, 1000), podSandboxId: 'p1' };
    const b2 = { ...container('b', 5e8, 3000), podSandboxId: 'p1' };
    client.containerStats = [a2, b2];
    client.podStatsList = [bare('p1', [a2, b2]), pod('p2', 2e9)];
    await tick();
    const pods = recorder.last?.pods ?? [];
    expect(pods.find((p) => p.podSandboxId === 'p1')).toMatchObject({
      cpuPercent: 75,
      source: 'containers',
    });
    // A pod with figures of its own keeps them, unlabelled.
    const own = pods.find((p) => p.podSandboxId === 'p2');
    expect(own?.cpuPercent).toBe(100);
    expect(own?.source).toBeUndefined();
  });

  it('never asks a runtime that crashes on pod stats for them, and sums its pods instead', async () => {
    client.hazard = 'CRI-O 1.36.3 can crash when asked for pod stats (cri-o#10206).';
    client.pods = [readyPod('p1', 'web')];
    client.containerStats = [{ ...container('a', 0, 1000), podSandboxId: 'p1' }];
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    client.containerStats = [{ ...container('a', 1e9, 1000), podSandboxId: 'p1' }];
    await tick();
    expect(recorder.last?.pods).toEqual([
      {
        podSandboxId: 'p1',
        name: 'web',
        namespace: 'default',
        cpuPercent: 50,
        memoryWorkingSetBytes: 1000,
        memoryUsageBytes: 2000,
        source: 'containers',
      },
    ]);
    expect(recorder.last?.podStatsAvoided).toBe(client.hazard);
    expect(client.count('listPodStats')).toBe(0);
    expect(client.calls.filter((call) => call.startsWith('podStats'))).toEqual([]);

    // The runtime came back as a version without the crash: its pods' own stats again.
    client.hazard = undefined;
    client.podStatsList = [pod('p1', 0, 'web')];
    await tick();
    client.podStatsList = [pod('p1', 1e9, 'web')];
    await tick();
    expect(recorder.last?.podStatsAvoided).toBeUndefined();
    expect(recorder.last?.pods.map((p) => [p.name, p.cpuPercent, p.source])).toEqual([
      ['web', 50, undefined],
    ]);
  });

  it('bounds the history by age', async () => {
    const recorder = new Recorder();
    poller.subscribe(recorder);
    for (let i = 0; i < 20; i += 1) {
      client.containerStats = [container('a', i * 1e8)];
      await tick();
    }
    const late = new Recorder();
    poller.subscribe(late);
    const history = late.updates[0]?.samples ?? [];
    expect(history.length).toBeLessThanOrEqual(6);
    expect(now() - (history[0]?.at ?? 0)).toBeLessThanOrEqual(10_000 + 2000);
  });

  it('reports a runtime without pod stats once, and keeps the container stats', async () => {
    client.listPodStatsError = unimplemented();
    client.containerStats = [container('a', 0)];
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await tick();
    await tick();
    expect(recorder.last).toMatchObject({ podStatsSupported: false, pods: [] });
    expect(recorder.last?.podStatsError).toBeUndefined();
    expect(recorder.last?.containers).toHaveLength(1);
    expect(client.count('listPodStats')).toBe(1);
  });

  it('computes pod CPU from its own counters and learns which pod each container is in', async () => {
    client.podStatsList = [
      { ...pod('p1', 0), containers: [{ ...container('a', 0), podSandboxId: 'p1' }] },
    ];
    client.containerStats = [container('a', 0), container('b', 0)];
    client.containers = [
      { id: 'a', podSandboxId: 'p1' },
      { id: 'b', podSandboxId: 'p2' },
    ];
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    client.podStatsList = [{ ...pod('p1', 4e9), containers: [] }];
    client.containerStats = [container('a', 4e9), container('b', 2e8)];
    await tick();
    expect(recorder.last?.pods).toEqual([
      {
        podSandboxId: 'p1',
        name: 'p-p1',
        namespace: 'default',
        cpuPercent: 200,
        memoryWorkingSetBytes: 4096,
      },
    ]);
    expect(
      recorder.last?.containers.map((c) => [c.containerId, c.podSandboxId, c.cpuPercent]),
    ).toEqual([
      ['a', 'p1', 200],
      ['b', 'p2', 10],
    ]);
    // Known containers are not listed again.
    await tick();
    expect(client.count('listContainers')).toBe(1);
  });

  it('leaves out exited containers, which report no usage', async () => {
    client.containerStats = [container('a', 0), container('gone', undefined)];
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    expect(recorder.last?.containers.map((c) => c.containerId)).toEqual(['a']);
  });

  it('shows no spike when a counter resets', async () => {
    client.containerStats = [container('a', 10e9)];
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    // Half a core, then a restart (the counter starts again), then half a core again.
    for (const nanos of [11e9, 2e8, 1.2e9]) {
      client.containerStats = [container('a', nanos)];
      await tick();
    }
    expect(recorder.samples.map((s) => s.containers[0]?.cpuPercent)).toEqual([
      undefined,
      50,
      undefined,
      50,
    ]);
  });

  it('reads pods one by one when the list fails for one pod, naming the pods it cannot read', async () => {
    client.listPodStatsError = noCgroup('p2');
    client.pods = [readyPod('p1', 'web'), readyPod('p2', 'no-cgroup')];
    client.podStatsList = [pod('p1', 0, 'web')];
    client.podStatsErrors.set('p2', noCgroup('p2'));
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    client.podStatsList = [pod('p1', 1e9, 'web')];
    await tick();
    expect(recorder.last?.pods.map((p) => [p.name, p.cpuPercent])).toEqual([['web', 50]]);
    expect(recorder.last?.podStatsSupported).toBe(true);
    expect(recorder.last?.podStatsError).toMatchObject({
      code: 'failed-precondition',
      message: "The stats of pod no-cgroup can't be read.",
      detail: expect.stringContaining('cgroupPath is empty') as string,
    });
    // And the pod itself, with why, for the pods list to show.
    expect(recorder.last?.unreadablePods).toEqual([
      {
        podSandboxId: 'p2',
        name: 'no-cgroup',
        namespace: expect.any(String) as string,
        reason: 'It has no cgroup of its own: it was started without a cgroup parent.',
        detail: expect.stringContaining('cgroupPath is empty') as string,
      },
    ]);
    // The pod that can't be read is not asked again, nor is the list (until the retry time).
    expect(client.count('podStats p2')).toBe(1);
    expect(client.count('listPodStats')).toBe(1);
    expect(client.count('podStats p1')).toBe(2);

    // The pod goes away: the list is tried again 30 s after it failed, and works.
    client.listPodStatsError = undefined;
    client.pods = [readyPod('p1', 'web')];
    await tick(26_000);
    expect(client.count('listPodStats')).toBe(1);
    await tick(2000);
    expect(client.count('listPodStats')).toBe(2);
    expect(recorder.last?.podStatsError).toBeUndefined();
    expect(recorder.last?.unreadablePods).toBeUndefined();
  });

  it('reads pods one by one for one poll when a container vanished during the list', async () => {
    client.listPodStatsError = new AppError({
      code: 'not-found',
      message: 'failed to decode sandbox container metrics: task 09f5 not found: not found',
    });
    client.pods = [readyPod('p1', 'web'), readyPod('p2', 'going')];
    client.podStatsList = [pod('p1', 0, 'web')];
    client.podStatsErrors.set('p2', new AppError({ code: 'not-found', message: 'not found' }));
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    expect(recorder.last?.pods.map((p) => p.name)).toEqual(['web']);
    // A race, not a fault: no warning, and the list is asked again at the next poll.
    expect(recorder.last?.podStatsError).toBeUndefined();
    client.listPodStatsError = undefined;
    await tick();
    expect(client.count('listPodStats')).toBe(2);
    expect(client.count('podStats p2')).toBe(1);
  });

  it('reports a failed poll and goes on polling; the next success clears it', async () => {
    client.containerStatsError = new AppError({ code: 'deadline-exceeded', message: 'Too slow.' });
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    expect(recorder.updates[1]).toMatchObject({
      reset: false,
      samples: [],
      error: { code: 'deadline-exceeded' },
    });
    // A subscriber arriving now hears about it too.
    const late = new Recorder();
    poller.subscribe(late);
    expect(late.updates[0]?.error?.code).toBe('deadline-exceeded');
    client.containerStatsError = undefined;
    client.containerStats = [container('a', 0)];
    await tick();
    const last = recorder.updates[recorder.updates.length - 1];
    expect(last?.error).toBeUndefined();
    expect(last?.samples).toHaveLength(1);
    expect(recorder.errors).toEqual([]);
  });

  it('ends every subscription with the error given to fail(), and polls no more', async () => {
    const recorder = new Recorder();
    poller.subscribe(recorder);
    await vi.advanceTimersByTimeAsync(0);
    poller.fail(new AppError({ code: 'connection-lost', message: 'The node went away.' }));
    expect(recorder.errors.map((e) => e.message)).toEqual(['The node went away.']);
    expect(poller.subscriberCount).toBe(0);
    const calls = client.calls.length;
    await tick(10_000);
    expect(client.calls.length).toBe(calls);
  });
});
