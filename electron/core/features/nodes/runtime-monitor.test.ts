import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { toDisposable } from '../../../../shared/lifecycle';
import type { NodeOutage } from '../../../../shared/model';
import { RuntimeMonitor, type RuntimeMonitorOptions } from './runtime-monitor';

const gone = new AppError({ code: 'unavailable', message: 'The runtime went away.' });

/** A runtime whose answers the test switches, and a monitor over it with the real defaults. */
function setup(overrides: Partial<RuntimeMonitorOptions> = {}) {
  const runtime = { up: true, probes: 0, attempts: 0 };
  const outages: (NodeOutage | undefined)[] = [];
  const drops = new Set<() => void>();
  const answer = (): Promise<void> => (runtime.up ? Promise.resolve() : Promise.reject(gone));
  const monitor = new RuntimeMonitor({
    probe: () => {
      runtime.probes++;
      return answer();
    },
    reconnect: () => {
      runtime.attempts++;
      return answer();
    },
    onChange: (outage) => outages.push(outage),
    onDidDrop: (listener) => {
      drops.add(listener);
      return toDisposable(() => drops.delete(listener));
    },
    ...overrides,
  });
  const drop = (): void => {
    for (const listener of drops) listener();
  };
  return { runtime, outages, monitor, drop, drops };
}

describe('RuntimeMonitor', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not probe a runtime heard from meanwhile; a probe that times out is "not answering"', async () => {
    const { runtime, monitor } = setup();
    // A busy node: something heard every 2.9 s, never 3 s of silence.
    for (let gap = 0; gap < 6; gap++) {
      await vi.advanceTimersByTimeAsync(2900);
      monitor.heard();
    }
    expect(runtime.probes).toBe(0);
    // Then silent: probed 3 s after the last word, and not before.
    await vi.advanceTimersByTimeAsync(2999);
    expect(runtime.probes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runtime.probes).toBe(1);
    monitor.dispose();

    const frozen = setup({
      probe: () =>
        Promise.reject(
          new AppError({ code: 'deadline-exceeded', message: 'It is not answering.' }),
        ),
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(frozen.outages[0]).toMatchObject({ kind: 'not-answering', attempt: 1 });
    frozen.monitor.dispose();
  });

  it('probes an idle runtime every 3 s, and notices one that is gone within one interval', async () => {
    const { runtime, outages, monitor } = setup();
    await vi.advanceTimersByTimeAsync(12_000);
    expect(runtime.probes).toBe(4);
    expect(outages).toEqual([]);

    runtime.up = false;
    await vi.advanceTimersByTimeAsync(3000);
    expect(outages).toHaveLength(1);
    expect(outages[0]).toMatchObject({
      kind: 'unreachable',
      since: 1_015_000,
      lastSeenAt: 1_012_000,
      attempt: 1,
      error: { code: 'unavailable', message: 'The runtime went away.' },
    });
    monitor.dispose();
  });

  it('reconnects with jittered backoff from about 250 ms up to 5 s, until the runtime is back', async () => {
    const { runtime, outages, monitor } = setup();
    runtime.up = false;
    monitor.check();
    await vi.advanceTimersByTimeAsync(0);
    const delays = (): number[] =>
      outages.flatMap((outage, i) => {
        const previous = outages[i - 1];
        return outage === undefined || previous === undefined
          ? []
          : [outage.nextAttemptAt - previous.nextAttemptAt];
      });
    // Each outage update is one failed attempt and the time of the next.
    await vi.advanceTimersByTimeAsync(60_000);
    const first = outages[0];
    expect(first?.nextAttemptAt).toBeGreaterThanOrEqual(first!.since + 200);
    expect(first?.nextAttemptAt).toBeLessThanOrEqual(first!.since + 300);
    const gaps = delays();
    expect(gaps.length).toBeGreaterThan(10);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(5000 + 10);
    expect(gaps.slice(-3).every((gap) => gap >= 4000)).toBe(true);
    expect(outages.at(-1)?.lastError?.message).toBe('The runtime went away.');
    expect(outages.at(-1)?.since).toBe(first?.since);

    runtime.up = true;
    await vi.advanceTimersByTimeAsync(5000);
    expect(outages.at(-1)).toBeUndefined();
    const attempts = runtime.attempts;
    // Up again: back to probing, no more attempts.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(runtime.attempts).toBe(attempts);
    monitor.dispose();
  });

  it('makes a new connection at once when the old one drops, without an outage if that works', async () => {
    const { runtime, outages, monitor, drop } = setup();
    drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(runtime.attempts).toBe(1);
    expect(outages).toEqual([]);

    runtime.up = false;
    drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(runtime.attempts).toBe(2);
    expect(outages).toHaveLength(1);
    // A drop during an outage changes nothing: the attempts go on at their pace.
    drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(runtime.attempts).toBe(2);
    monitor.dispose();
  });

  it('retries at once when asked, rejecting while down and starting the backoff over', async () => {
    const { runtime, outages, monitor } = setup();
    runtime.up = false;
    monitor.check();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(outages.at(-1)?.attempt).toBeGreaterThan(4);

    const before = runtime.attempts;
    await expect(monitor.retryNow()).rejects.toMatchObject({ code: 'unavailable' });
    expect(runtime.attempts).toBe(before + 1);
    expect(outages.at(-1)?.attempt).toBe(1);

    runtime.up = true;
    await expect(monitor.retryNow()).resolves.toBeUndefined();
    expect(monitor.outage).toBeUndefined();
    expect(outages.at(-1)).toBeUndefined();
    // Up: nothing to retry.
    await expect(monitor.retryNow()).resolves.toBeUndefined();
    expect(runtime.attempts).toBe(before + 2);
    monitor.dispose();
  });

  it('tries at once, and the backoff over, when the runtime may be back; watches only while down', async () => {
    const returns = new Set<() => void>();
    const { runtime, outages, monitor } = setup({
      watchReturn: (listener) => {
        returns.add(listener);
        return toDisposable(() => returns.delete(listener));
      },
    });
    expect(returns.size).toBe(0);
    runtime.up = false;
    monitor.check();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(returns.size).toBe(1);
    expect(outages.at(-1)?.attempt).toBeGreaterThan(4);
    const attempts = runtime.attempts;
    // The socket appeared while the runtime is still starting: an attempt now, then fast.
    for (const listener of returns) listener();
    await vi.advanceTimersByTimeAsync(0);
    expect(runtime.attempts).toBe(attempts + 1);
    expect(outages.at(-1)?.attempt).toBe(1);
    runtime.up = true;
    await vi.advanceTimersByTimeAsync(300);
    expect(outages.at(-1)).toBeUndefined();
    expect(returns.size).toBe(0);
    monitor.dispose();
  });

  it('runs one probe or attempt at a time', async () => {
    let release: (() => void) | undefined;
    let running = 0;
    let most = 0;
    const { monitor } = setup({
      probe: () => {
        running++;
        most = Math.max(most, running);
        return new Promise<void>((resolve) => {
          release = () => {
            running--;
            resolve();
          };
        });
      },
    });
    monitor.check();
    monitor.check();
    monitor.check();
    release?.();
    await vi.advanceTimersByTimeAsync(0);
    release?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(most).toBe(1);
    monitor.dispose();
  });

  it('stops on dispose: no timer, no drop listener, and a retry is refused', async () => {
    const { runtime, monitor, drops } = setup();
    runtime.up = false;
    monitor.check();
    await vi.advanceTimersByTimeAsync(0);
    monitor.dispose();
    const attempts = runtime.attempts;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runtime.attempts).toBe(attempts);
    expect(drops.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await expect(monitor.retryNow()).rejects.toMatchObject({ code: 'cancelled' });
  });
});
