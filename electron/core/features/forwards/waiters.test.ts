import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { PortForwardTransport } from '../../base/streaming/portforward';
import { TransportWaiters } from './waiters';

// Only its identity matters: the waiters hand it on untouched.
const transport = { kind: 'spdy' } as unknown as PortForwardTransport;

describe('TransportWaiters', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands the next transport to every connection waiting', async () => {
    const waiters = new TransportWaiters(1000, 4);
    const waits = [waiters.wait(() => 'down'), waiters.wait(() => 'down')];
    waiters.resolveAll(transport);
    await expect(Promise.all(waits)).resolves.toEqual([transport, transport]);
  });

  it('refuses a connection at once when as many wait as allowed', async () => {
    const waiters = new TransportWaiters(1000, 1);
    const first = waiters.wait(() => 'Reconnecting.');
    await expect(waiters.wait(() => 'Reconnecting.')).rejects.toMatchObject({
      code: 'unavailable',
      detail: 'Reconnecting. Too many connections are waiting already. (waited 0 ms)',
    });
    waiters.resolveAll(transport);
    await expect(first).resolves.toBe(transport);
  });

  it('refuses a connection that waited too long, with the reason as it is by then', async () => {
    vi.useFakeTimers();
    const waiters = new TransportWaiters(100, 1);
    let reason = 'Starting.';
    const wait = waiters.wait(() => reason);
    const refused = expect(wait).rejects.toMatchObject({
      detail: 'No ready pod. (waited 100 ms)',
    });
    reason = 'No ready pod.';
    await vi.advanceTimersByTimeAsync(100);
    await refused;
    // The refused one no longer counts towards the limit.
    const again = waiters.wait(() => reason);
    waiters.resolveAll(transport);
    await expect(again).resolves.toBe(transport);
  });

  it('fails every wait when the forward ends', async () => {
    const waiters = new TransportWaiters(1000, 4);
    const wait = waiters.wait(() => 'down');
    waiters.rejectAll(
      () => new AppError({ code: 'cancelled', message: 'The forward was stopped.' }),
    );
    await expect(wait).rejects.toMatchObject({ code: 'cancelled' });
  });
});
