import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { SessionSnapshot } from '../../../../shared/model';
import { SessionRegistry, type SessionInit } from './registry';

function init(overrides: Partial<SessionInit> = {}): SessionInit {
  return {
    kind: 'exec',
    nodeId: 'node-1',
    nodeName: 'lab',
    target: { description: 'default/web › app', containerId: 'c1' },
    detail: 'sh',
    kill: () => undefined,
    ...overrides,
  };
}

describe('SessionRegistry', () => {
  let clock = 0;
  let registry: SessionRegistry;
  let events: (readonly SessionSnapshot[])[];

  beforeEach(() => {
    vi.useFakeTimers();
    clock = 1_000_000;
    events = [];
  });

  afterEach(() => {
    registry.dispose();
    vi.useRealTimers();
  });

  function create(options: ConstructorParameters<typeof SessionRegistry>[0] = {}): SessionRegistry {
    registry = new SessionRegistry({ now: () => clock, ...options });
    registry.onDidChange((sessions) => events.push(sessions));
    return registry;
  }

  it('lists a registered session as starting, then as its owner updates it', () => {
    create();
    const handle = registry.register(init());
    expect(registry.list()).toEqual([
      expect.objectContaining({
        id: handle.id,
        kind: 'exec',
        nodeName: 'lab',
        detail: 'sh',
        state: 'starting',
        startedAt: clock,
        bytesIn: 0,
        bytesOut: 0,
        throughput: [],
        killable: true,
      }),
    ]);
    handle.update({
      state: 'active',
      stateReason: 'Running.',
      transport: 'websocket',
      protocol: 'v5.channel.k8s.io',
    });
    expect(registry.list()[0]).toMatchObject({
      state: 'active',
      stateReason: 'Running.',
      transport: 'websocket',
      protocol: 'v5.channel.k8s.io',
    });
    // A new state without a reason clears the old reason: it explained the old state.
    handle.update({ state: 'reconnecting' });
    expect(registry.list()[0]?.stateReason).toBeUndefined();
    expect(events).toHaveLength(3);
  });

  it('counts bytes and activity without an event per chunk; the tick samples throughput', () => {
    create({ tickMs: 1000, samples: 3 });
    const handle = registry.register(init());
    events.length = 0;
    clock += 500;
    handle.countIn(3000);
    handle.countOut(1000);
    handle.countIn(0);
    handle.countOut(-5);
    expect(events).toHaveLength(0);
    expect(registry.list()[0]).toMatchObject({
      bytesIn: 3000,
      bytesOut: 1000,
      lastActivityAt: clock,
    });

    vi.advanceTimersByTime(1000);
    expect(events).toHaveLength(1);
    expect(events[0]?.[0]?.throughput).toEqual([4000]);
    vi.advanceTimersByTime(1000);
    handle.countOut(500);
    vi.advanceTimersByTime(1000);
    handle.countIn(100);
    vi.advanceTimersByTime(1000);
    // Only the last `samples` are kept, oldest first.
    expect(registry.list()[0]?.throughput).toEqual([0, 500, 100]);
  });

  it('reports throughput per second whatever the tick', () => {
    create({ tickMs: 250 });
    const handle = registry.register(init());
    handle.countIn(1000);
    vi.advanceTimersByTime(250);
    expect(registry.list()[0]?.throughput).toEqual([4000]);
  });

  it('ticks only while a session is live', () => {
    create({ tickMs: 1000 });
    const handle = registry.register(init());
    expect(vi.getTimerCount()).toBe(1);
    handle.end({ state: 'ended', reason: 'Closed.' });
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
    registry.register(init());
    expect(vi.getTimerCount()).toBe(1);
  });

  it('ends a session for good: later updates, bytes and ends are ignored', () => {
    create();
    const handle = registry.register(init());
    handle.countIn(10);
    clock += 2000;
    handle.end({ state: 'ended', reason: 'The process exited with code 3.', exitCode: 3 });
    const ended = registry.list()[0];
    expect(ended).toMatchObject({
      state: 'ended',
      stateReason: 'The process exited with code 3.',
      exitCode: 3,
      endedAt: clock,
      killable: false,
      bytesIn: 10,
    });
    handle.update({ state: 'active', stateReason: 'Back?' });
    handle.countIn(99);
    handle.countOut(99);
    handle.end({ state: 'failed', reason: 'Twice.' });
    expect(registry.list()).toEqual([ended]);
  });

  it('keeps a bounded history, newest first, after the live sessions', () => {
    create({ historyLimit: 2 });
    const live = registry.register(init({ detail: 'live' }));
    for (const name of ['one', 'two', 'three']) {
      clock += 1;
      registry.register(init({ detail: name })).end({ state: 'ended', reason: 'Done.' });
    }
    expect(registry.list().map((session) => session.detail)).toEqual(['live', 'three', 'two']);
    registry.clearHistory();
    expect(registry.list().map((session) => session.id)).toEqual([live.id]);
  });

  it('kills a live session through its owner, and refuses an ended one', () => {
    create();
    const kill = vi.fn();
    const handle = registry.register(init({ kill }));
    registry.kill(handle.id);
    expect(kill).toHaveBeenCalledTimes(1);
    handle.end({ state: 'ended', reason: 'Killed.' });
    expect(() => registry.kill(handle.id)).toThrow(AppError);
    expect(() => registry.kill('no-such-session')).toThrowError(
      expect.objectContaining({ code: 'not-found' }) as Error,
    );
    expect(kill).toHaveBeenCalledTimes(1);
  });

  it('records failures with their error', () => {
    create();
    const handle = registry.register(init({ kind: 'port-forward' }));
    handle.end({
      state: 'failed',
      reason: 'The stream dropped.',
      error: { code: 'connection-lost', message: 'The stream dropped.' },
    });
    expect(registry.list()[0]).toMatchObject({
      state: 'failed',
      error: { code: 'connection-lost' },
    });
  });

  it('is quiet after dispose: no timer, no events, nothing listed', () => {
    create();
    registry.register(init());
    registry.dispose();
    events.length = 0;
    const late = registry.register(init());
    late.countIn(5);
    late.end({ state: 'ended', reason: 'Done.' });
    vi.advanceTimersByTime(5000);
    expect(events).toEqual([]);
    expect(registry.list()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
