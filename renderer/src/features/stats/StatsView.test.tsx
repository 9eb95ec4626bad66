// @vitest-environment happy-dom
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventSink } from '../../../../shared/contract';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import { AppError } from '../../../../shared/errors';
import { toDisposable } from '../../../../shared/lifecycle';
import {
  nodesReset,
  type NodeStatus,
  type StatsSample,
  type StatsUpdate,
} from '../../../../shared/model';
import { createAppModel, type AppModel } from '../../app/model';
import { mountView } from '../../app/testing';
import { createInMemoryPorthole } from '../../platform';
import { statsStoreOf } from './stats-store';
import { StatsView } from './StatsView';

const lab: NodeStatus = {
  nodeId: 'n1',
  name: 'lab',
  kind: 'local',
  endpoint: 'unix:///lab.sock',
  origin: 'discovered',
  state: 'connected',
  connectedAt: 1,
};

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

interface Rendered {
  readonly model: AppModel;
  readonly sinks: EventSink<StatsUpdate>[];
  text(): string;
  element: HTMLElement;
}

async function render(nodes: NodeStatus[], prepare?: (model: AppModel) => void): Promise<Rendered> {
  const sinks: EventSink<StatsUpdate>[] = [];
  const events = fakeEvents({
    nodes: (_argument, sink) => {
      sink.next(nodesReset(nodes));
      return toDisposable(() => undefined);
    },
    stats: (_argument, sink) => {
      sinks.push(sink);
      return toDisposable(() => undefined);
    },
  });
  const model = createAppModel(createInMemoryPorthole(fakeServices(), events), {
    schedule: (run) => queueMicrotask(run),
  });
  prepare?.(model);
  const { element, unmount } = await mountView(model, <StatsView />);
  cleanup = unmount;
  return { model, sinks, element, text: () => element.textContent ?? '' };
}

async function settle(check: () => void): Promise<void> {
  await vi.waitFor(async () => {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    check();
  });
}

/** The view's stats subscription delivers one sample as its history. */
async function deliver(view: Rendered, sample: StatsSample): Promise<void> {
  await settle(() => expect(view.sinks).toHaveLength(1));
  await act(async () => {
    view.sinks[0]?.next({ reset: true, intervalMs: 2000, historyMs: 300_000, samples: [sample] });
    await Promise.resolve();
  });
}

describe('the Stats view', () => {
  it('says how to get a node when none is connected', async () => {
    const view = await render([]);
    await settle(() => expect(view.text()).toContain('No node connected'));
  });

  it('says plainly when the runtime has no pod stats', async () => {
    const view = await render([lab], (model) => statsStoreOf(model).setView({ kind: 'pods' }));
    await deliver(view, {
      at: 1000,
      containers: [{ containerId: 'c1', name: 'web', memoryWorkingSetBytes: 1024 }],
      pods: [],
      podStatsSupported: false,
      containerStatsSupported: true,
    });
    await settle(() =>
      expect(view.text()).toContain('Pod stats are not supported by this runtime'),
    );
    expect(view.text()).toContain('Every 2 s · last 5 min');
  });

  it('lists the pods whose stats cannot be read, with why, never "no pods"', async () => {
    const view = await render([lab], (model) => statsStoreOf(model).setView({ kind: 'pods' }));
    await deliver(view, {
      at: 1000,
      containers: [],
      pods: [],
      podStatsSupported: true,
      containerStatsSupported: true,
      podStatsError: {
        code: 'failed-precondition',
        message: "The stats of pod batch can't be read.",
      },
      unreadablePods: [
        {
          podSandboxId: 'p1',
          name: 'batch',
          namespace: 'jobs',
          reason: 'It has no cgroup of its own: it was started without a cgroup parent.',
          detail: 'cgroupPath is empty',
        },
      ],
    });
    await settle(() => expect(view.text()).toContain('No pod stats to chart'));
    expect(view.text()).not.toContain('No running pods');
    const row = view.element.querySelector('tr[data-series-id="p1"]');
    expect(row?.textContent).toContain('batch');
    expect(row?.textContent).toContain('started without a cgroup parent');
    expect(row?.textContent).toContain('can’t be read');
    expect(row?.querySelector('input')?.disabled).toBe(true);
  });

  it('shows why the stream ended, and subscribes again on Retry', async () => {
    const view = await render([lab]);
    await settle(() => expect(view.sinks).toHaveLength(1));
    await act(async () => {
      view.sinks[0]?.error(
        new AppError({
          code: 'failed-precondition',
          message: 'Stats of lab stopped: the node was disconnected.',
        }),
      );
      await Promise.resolve();
    });
    await settle(() => expect(view.text()).toContain('the node was disconnected'));
    const retry = [...view.element.querySelectorAll('button')].find(
      (button) => button.textContent === 'Retry',
    );
    await act(async () => {
      retry?.click();
      await Promise.resolve();
    });
    await settle(() => expect(view.sinks).toHaveLength(2));
  });
});
