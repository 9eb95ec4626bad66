import { describe, expect, it } from 'vitest';
import type { Container, OnNode, TimelineEvent } from '../../../../shared/model';
import {
  crashLoops,
  describeEvent,
  emptyFilter,
  logsLinkOf,
  visibleEvents,
} from './timeline-model';

let seq = 0;
function event(change: Partial<TimelineEvent>): TimelineEvent {
  seq += 1;
  return {
    seq,
    nodeId: 'n1',
    time: seq * 1000,
    seenAt: seq * 1000,
    kind: 'exited',
    source: 'events',
    podId: 'p1',
    podName: 'web',
    namespace: 'default',
    containerId: `c${seq}`,
    containerName: 'app',
    attempt: 0,
    ...change,
  };
}

function container(id: string, attempt: number): OnNode<Container> {
  return {
    id,
    podSandboxId: 'p1',
    name: 'app',
    attempt,
    image: 'busybox',
    imageRef: '',
    state: 'running',
    createdAt: 0,
    labels: {},
    annotations: {},
    nodeId: 'n1',
  };
}

describe('the timeline view model', () => {
  it('marks a container that fails on several attempts within minutes as a crash loop', () => {
    const exits = [0, 1, 2].map((attempt) =>
      event({ attempt, exitCode: 1, reason: 'Error', time: 100_000 + attempt * 20_000 }),
    );
    const loops = crashLoops([
      ...exits,
      // Completed exits, another container and a long-ago failure do not count.
      event({ containerName: 'init', exitCode: 0, attempt: 3 }),
      event({ containerName: 'other', exitCode: 2, attempt: 0 }),
    ]);
    expect([...loops.keys()]).toEqual(['n1/p1/app']);
    expect(loops.get('n1/p1/app')).toMatchObject({ exits: 3, lastAttempt: 2 });
    const spread = [0, 1, 2].map((attempt) =>
      event({ attempt, exitCode: 137, reason: 'OOMKilled', time: attempt * 30 * 60_000 }),
    );
    expect(crashLoops(spread).size).toBe(0);
    expect(describeEvent(exits[0] as TimelineEvent)).toBe('exited · code 1 · Error');
    expect(describeEvent(event({ kind: 'created', attempt: 2 }))).toBe('restarted (attempt 2)');
  });

  it('opens the attempt that exited, or the next attempt’s previous log once it is gone', () => {
    const exit = event({ containerId: 'old', attempt: 1 });
    expect(logsLinkOf(exit, [container('old', 1), container('new', 2)])).toMatchObject({
      containerId: 'old',
      previous: false,
    });
    expect(logsLinkOf(exit, [container('new', 2)])).toMatchObject({
      containerId: 'new',
      previous: true,
    });
    const start = event({ kind: 'started', containerId: 'new', attempt: 2, time: 5000 });
    expect(logsLinkOf(start, [])).toMatchObject({ containerId: 'new', since: 5000 });
    expect(logsLinkOf(event({ kind: 'pod-ready', containerId: undefined }), [])).toBeUndefined();
  });

  it('filters by node, pod, container and kind within the zoom window, newest first', () => {
    const events = [
      event({ kind: 'created', attempt: 1, time: 10_000 }),
      event({
        kind: 'pod-notready',
        containerId: undefined,
        containerName: undefined,
        time: 20_000,
      }),
      event({ podName: 'db', time: 30_000 }),
      event({ nodeId: 'n2', time: 40_000 }),
    ];
    const at = (filter: Partial<typeof emptyFilter>, windowMs?: number) =>
      visibleEvents(events, { ...emptyFilter, ...filter }, windowMs, 45_000).map((e) => e.time);
    expect(at({})).toEqual([40_000, 30_000, 20_000, 10_000]);
    expect(at({}, 20_000)).toEqual([40_000, 30_000]);
    expect(at({ nodeId: 'n1', pod: 'default/WEB' })).toEqual([20_000, 10_000]);
    expect(at({ kind: 'restarts' })).toEqual([10_000]);
    expect(at({ kind: 'pods' })).toEqual([20_000]);
    expect(at({ container: 'app', kind: 'exits' })).toEqual([40_000, 30_000]);
  });
});
