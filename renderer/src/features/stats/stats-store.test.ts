import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventSink } from '../../../../shared/contract';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import { AppError } from '../../../../shared/errors';
import { toDisposable } from '../../../../shared/lifecycle';
import {
  nodesReset,
  type NodesDelta,
  type NodeStatus,
  type StatsSample,
  type StatsUpdate,
} from '../../../../shared/model';
import { createAppModel, type AppModel } from '../../app/model';
import { createInMemoryPorthole } from '../../platform';
import { lingerMs, statsStoreOf } from './stats-store';

function node(connectedAt: number): NodeStatus {
  return {
    nodeId: 'n1',
    name: 'lab',
    kind: 'local',
    endpoint: 'unix:///lab.sock',
    origin: 'discovered',
    state: 'connected',
    connectedAt,
  };
}

function sample(at: number, cpuPercent: number): StatsSample {
  return {
    at,
    containers: [{ containerId: 'c1', name: 'web', cpuPercent, memoryWorkingSetBytes: 1024 }],
    pods: [],
    podStatsSupported: true,
    containerStatsSupported: true,
  };
}

const update = (
  reset: boolean,
  samples: StatsSample[],
  error?: StatsUpdate['error'],
): StatsUpdate => ({
  reset,
  samples,
  intervalMs: 2000,
  historyMs: 60_000,
  ...(error !== undefined && { error }),
});

describe('the stats store', () => {
  let model: AppModel;
  let sinks: EventSink<StatsUpdate>[];
  let open: number;
  let nodesSink: EventSink<NodesDelta> | undefined;

  /** Lets messages cross the in-memory port. */
  const flush = () => vi.advanceTimersByTimeAsync(1);

  beforeEach(() => {
    vi.useFakeTimers();
    sinks = [];
    open = 0;
    const events = fakeEvents({
      nodes: (_argument, sink) => {
        nodesSink = sink;
        sink.next(nodesReset([node(1)]));
        return toDisposable(() => undefined);
      },
      stats: (argument, sink) => {
        expect(argument).toEqual({ nodeId: 'n1' });
        sinks.push(sink);
        open += 1;
        return toDisposable(() => {
          open -= 1;
        });
      },
    });
    model = createAppModel(createInMemoryPorthole(fakeServices(), events), {
      schedule: (run) => queueMicrotask(run),
    });
  });

  afterEach(() => {
    model.dispose();
    model.client.dispose();
    vi.useRealTimers();
  });

  it('subscribes once per node for all its users, and lets go a while after the last', async () => {
    const store = statsStoreOf(model);
    const first = store.retain('n1');
    const second = store.retain('n1');
    await flush();
    expect(open).toBe(1);
    sinks[0]?.next(update(true, [sample(1000, 5)]));
    await flush();
    expect(store.getState().byNode.n1?.samples).toHaveLength(1);
    first.dispose();
    second.dispose();
    await vi.advanceTimersByTimeAsync(lingerMs - 100);
    expect(open).toBe(1);
    // Back within the linger: nothing restarts.
    const third = store.retain('n1');
    await vi.advanceTimersByTimeAsync(lingerMs);
    expect(open).toBe(1);
    third.dispose();
    await vi.advanceTimersByTimeAsync(lingerMs + 100);
    expect(open).toBe(0);
    expect(store.getState().byNode.n1).toBeUndefined();
  });

  it('replaces the samples on a reset, appends otherwise, and indexes the sparklines', async () => {
    const store = statsStoreOf(model);
    store.retain('n1');
    await flush();
    sinks[0]?.next(update(true, [sample(1000, 5), sample(3000, 7)]));
    sinks[0]?.next(update(false, [sample(5000, 9)]));
    await flush();
    expect(store.getState().byNode.n1?.samples.map((s) => s.at)).toEqual([1000, 3000, 5000]);
    expect(store.getState().byNode.n1?.spark.containers.get('c1')?.cpu).toEqual([5, 7, 9]);
    sinks[0]?.next(update(true, [sample(9000, 1)]));
    await flush();
    expect(store.getState().byNode.n1?.samples.map((s) => s.at)).toEqual([9000]);
  });

  it('shows a failed poll until the next sample', async () => {
    const store = statsStoreOf(model);
    store.retain('n1');
    await flush();
    sinks[0]?.next(update(false, [], { code: 'deadline-exceeded', message: 'Too slow.' }));
    await flush();
    expect(store.getState().byNode.n1?.pollError?.message).toBe('Too slow.');
    sinks[0]?.next(update(false, [sample(1000, 1)]));
    await flush();
    expect(store.getState().byNode.n1?.pollError).toBeUndefined();
  });

  it('keeps why a stream ended, and subscribes again when the node reconnects', async () => {
    const store = statsStoreOf(model);
    store.retain('n1');
    await flush();
    sinks[0]?.error(
      new AppError({ code: 'failed-precondition', message: 'Stats of lab stopped.' }),
    );
    await flush();
    expect(store.getState().byNode.n1?.ended?.message).toBe('Stats of lab stopped.');
    // The same connection: no retry by itself.
    nodesSink?.next(nodesReset([node(1)]));
    await flush();
    expect(sinks).toHaveLength(1);
    nodesSink?.next(nodesReset([node(2)]));
    await flush();
    expect(sinks).toHaveLength(2);
    expect(store.getState().byNode.n1?.ended).toBeUndefined();
  });

  it('opens the view on one container', () => {
    const store = statsStoreOf(model);
    store.setView({ kind: 'pods', selected: { pods: ['p1'] } });
    store.focus('n1', 'containers', 'c1');
    expect(store.getState().view).toEqual({
      nodeId: 'n1',
      kind: 'containers',
      selected: { containers: ['c1'] },
      focusId: 'c1',
    });
  });
});
