// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import { toDisposable } from '../../../../shared/lifecycle';
import type { SessionSnapshot } from '../../../../shared/model';
import { createAppModel } from '../../app/model';
import { mountView } from '../../app/testing';
import { createInMemoryPorthole } from '../../platform';
import { sessionsOf } from './store';
import { SessionsView } from './SessionsView';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const forward: SessionSnapshot = {
  id: 's1',
  kind: 'port-forward',
  nodeId: 'n1',
  nodeName: 'lab',
  target: { description: 'porthole-test/web', podName: 'web', namespace: 'porthole-test' },
  attempts: [],
  state: 'active',
  startedAt: 1,
  lastActivityAt: 1,
  bytesIn: 0,
  bytesOut: 0,
  throughput: [],
  killable: true,
};

describe('the session monitor', () => {
  it('opens with the counters as they are now, not as of the last tick', async () => {
    // Like the core: the whole list when subscribed; traffic alone sends nothing until
    // the next tick (which this test never lets come).
    let current = forward;
    const events = fakeEvents({
      sessions: (_argument, sink) => {
        sink.next([current]);
        return toDisposable(() => undefined);
      },
    });
    const model = createAppModel(createInMemoryPorthole(fakeServices(), events), {
      schedule: (run) => queueMicrotask(run),
    });
    // The sidebar's count subscribes long before anyone opens the monitor.
    const feature = sessionsOf(model);
    await vi.waitFor(() => expect(feature.store.getState().loaded).toBe(true));
    current = { ...forward, bytesIn: 3 * 1024 * 1024, bytesOut: 300, lastActivityAt: 2 };

    cleanup = (await mountView(model, <SessionsView />)).unmount;
    // The store is what the table draws (happy-dom lays out no virtual-table rows to read).
    await vi.waitFor(() =>
      expect(feature.store.getState().sessions[0]?.bytesIn).toBe(3 * 1024 * 1024),
    );
  });
});
