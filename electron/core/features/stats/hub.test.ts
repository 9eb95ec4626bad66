import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import { toDisposable } from '../../../../shared/lifecycle';
import type { NodeStatus, NodesDelta, StatsUpdate } from '../../../../shared/model';
import { StatsHub, type StatsNodes } from './hub';
import type { StatsClient } from './poller';

function client(): StatsClient & { calls: number } {
  const fake = {
    calls: 0,
    listContainerStats: () => {
      fake.calls += 1;
      return Promise.resolve([]);
    },
    listPodStats: () => Promise.resolve([]),
    podStats: () => Promise.reject(new Error('not used')),
    podStatsHazard: () => Promise.resolve(undefined),
    listPods: () => Promise.resolve([]),
    listContainers: () => Promise.resolve([]),
  };
  return fake;
}

function status(
  nodeId: string,
  state: NodeStatus['state'],
  error?: NodeStatus['error'],
): NodeStatus {
  return {
    nodeId,
    name: `node ${nodeId}`,
    kind: 'local',
    endpoint: `unix:///${nodeId}.sock`,
    origin: 'discovered',
    state,
    ...(error !== undefined && { error }),
  };
}

/** Nodes whose connections the test opens and closes. */
class FakeNodes implements StatsNodes {
  readonly clients = new Map<string, ReturnType<typeof client>>();
  private readonly listeners = new Set<(delta: NodesDelta) => void>();

  client(nodeId: string): StatsClient {
    const found = this.clients.get(nodeId);
    if (found === undefined) {
      throw new AppError({
        code: 'failed-precondition',
        message: `node ${nodeId} is not connected.`,
      });
    }
    return found;
  }

  nodeName(nodeId: string): string {
    return `node ${nodeId}`;
  }

  onDidChange(listener: (delta: NodesDelta) => void) {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  }

  /** The nodes in `statuses` changed; `removed` are gone. */
  emit(statuses: readonly NodeStatus[], removed: readonly string[] = []): void {
    for (const listener of this.listeners) listener({ reset: false, upserted: statuses, removed });
  }
}

function sink(): EventSink<StatsUpdate> & { updates: StatsUpdate[]; errors: AppError[] } {
  const updates: StatsUpdate[] = [];
  const errors: AppError[] = [];
  return { updates, errors, next: (u) => updates.push(u), error: (e) => errors.push(e) };
}

describe('StatsHub', () => {
  let nodes: FakeNodes;
  let hub: StatsHub;

  beforeEach(() => {
    vi.useFakeTimers();
    nodes = new FakeNodes();
    nodes.clients.set('a', client());
    hub = new StatsHub(nodes, { intervalMs: 1000 });
  });

  afterEach(() => {
    hub.dispose();
    vi.useRealTimers();
  });

  it('refuses a node that is not connected', () => {
    expect(() => hub.subscribe('b', sink())).toThrow('node b is not connected.');
    expect(hub.polledNodes).toEqual([]);
  });

  it('polls a node once for all its subscribers, and stops with the last', async () => {
    const first = hub.subscribe('a', sink());
    const second = hub.subscribe('a', sink());
    await vi.advanceTimersByTimeAsync(3000);
    expect(nodes.clients.get('a')?.calls).toBe(4);
    first.dispose();
    expect(hub.polledNodes).toEqual(['a']);
    second.dispose();
    expect(hub.polledNodes).toEqual([]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(nodes.clients.get('a')?.calls).toBe(4);
  });

  it('ends the subscriptions of a node that disconnects, saying so', async () => {
    const subscriber = sink();
    hub.subscribe('a', subscriber);
    await vi.advanceTimersByTimeAsync(0);
    nodes.emit([status('a', 'connected')]);
    expect(subscriber.errors).toEqual([]);
    nodes.clients.delete('a');
    nodes.emit([
      status('a', 'failed', {
        code: 'connection-lost',
        message: 'The SSH connection to node a was lost: timed out.',
      }),
    ]);
    expect(subscriber.errors.map((e) => [e.code, e.message])).toEqual([
      [
        'connection-lost',
        'Stats of node a stopped: The SSH connection to node a was lost: timed out.',
      ],
    ]);
    expect(hub.polledNodes).toEqual([]);
  });

  it('keeps polling a node that is reconnecting', async () => {
    const subscriber = sink();
    hub.subscribe('a', subscriber);
    await vi.advanceTimersByTimeAsync(0);
    nodes.emit([status('a', 'reconnecting', { code: 'unavailable', message: 'gone' })]);
    expect(subscriber.errors).toEqual([]);
    expect(hub.polledNodes).toEqual(['a']);
    const calls = nodes.clients.get('a')?.calls ?? 0;
    await vi.advanceTimersByTimeAsync(3000);
    expect(nodes.clients.get('a')?.calls).toBeGreaterThan(calls);
  });

  it('says a node was disconnected or removed', () => {
    const disconnected = sink();
    hub.subscribe('a', disconnected);
    nodes.emit([status('a', 'disconnected')]);
    expect(disconnected.errors[0]?.message).toBe(
      'Stats of node a stopped: the node was disconnected.',
    );
    const removed = sink();
    hub.subscribe('a', removed);
    nodes.emit([], ['a']);
    expect(removed.errors[0]?.message).toBe('Stats of node a stopped: the node was removed.');
  });

  it('starts a new poller when the node has a new client (it reconnected)', () => {
    const old = sink();
    hub.subscribe('a', old);
    nodes.clients.set('a', client());
    const fresh = sink();
    hub.subscribe('a', fresh);
    expect(old.errors).toHaveLength(1);
    expect(fresh.errors).toEqual([]);
    expect(fresh.updates[0]?.reset).toBe(true);
  });
});
