/**
 * The timeline bench: a container's exit to its row on the timeline, through the real core,
 * on the lab's containerd 2.x (GetContainerEvents) and containerd 1.6 (list diffs, polled
 * every 2 s by default).
 *
 *   timeline_event_lag_ms           containerd 2.x: the runtime's finishedAt → the
 *                                   `timeline` event carrying that exit (the view's row as the
 *                                   core delivers it; the paint after it is not in the figure)
 *   timeline_event_lag_polling_ms   the same on containerd 1.6
 *
 * Median of 5 containers per runtime, each `sh -c 'sleep 0.3; exit 1'`, created and
 * started once the previous exit is on the timeline. Both times are this machine's clock.
 *
 *   npm run bench -- --only timeline
 *
 * Targets: ≤ 1 s on events, ≤ the poll interval + 0.5 s (2.5 s) on polling.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../../electron/core/base/cri';
import { createCore } from '../../electron/core/composition';
import { defaultWatcherTimings, discoveredNodeId } from '../../electron/core/features/nodes';
import type { TimelineEvent } from '../../shared/model';
import {
  busyboxContainerConfig,
  createLabContainer,
  labDir,
  labRuntimes,
  podSandboxConfig,
} from '../../test/support/lab';
import { median, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

const rounds = 5;

const figures = [
  { runtime: 'containerd-2', name: 'timeline_event_lag_ms', target: 1000 },
  {
    runtime: 'containerd-1.6',
    name: 'timeline_event_lag_polling_ms',
    target: defaultWatcherTimings.pollIntervalMs + 500,
  },
] as const;

export const timelineBench: BenchModule = {
  name: 'timeline',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'porthole-bench-timeline-'));
    const core = createCore({
      configDir: join(dir, 'config'),
      logFile: false,
      env: { PORTHOLE_LAB_DIR: labDir(), CRI_CONFIG_FILE: join(dir, 'none') },
    });
    /** Exits by container id, with when the `timeline` event brought them. */
    const arrived = new Map<string, { event: TimelineEvent; at: number }>();
    const waiters = new Set<() => void>();
    const subscription = core.events.timeline(undefined, {
      next: (update) => {
        const at = Date.now();
        for (const event of update.events) {
          if (event.kind === 'exited' && event.containerId !== undefined) {
            arrived.set(event.containerId, { event, at });
          }
        }
        for (const wake of [...waiters]) wake();
      },
      error: () => undefined,
    });
    const exitOf = (id: string) =>
      new Promise<{ event: TimelineEvent; at: number }>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`The exit of ${id} did not reach the timeline within 30 s.`));
        }, 30_000);
        const check = () => {
          const found = arrived.get(id);
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    const pods: { cri: CriClient; podId: string }[] = [];
    const out: BenchFigure[] = [];
    try {
      for (const figure of figures) {
        const runtime = labRuntimes().find((candidate) => candidate.id === figure.runtime);
        if (runtime === undefined) {
          context.log(`timeline: ${figure.runtime} is not running in the lab: no ${figure.name}`);
          continue;
        }
        const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 60_000 });
        const nodeId = discoveredNodeId(runtime.endpoint);
        await core.services.nodes.connect(nodeId);
        await core.timeline.watching(nodeId);
        const config = podSandboxConfig(`bench-timeline-${Date.now().toString(36)}`, { runtime });
        const podId = await cri.runPod(config);
        pods.push({ cri, podId });
        const lags: number[] = [];
        for (let attempt = 0; attempt < rounds; attempt += 1) {
          const id = await createLabContainer(
            cri,
            podId,
            busyboxContainerConfig('exits', ['sh', '-c', 'sleep 0.3; exit 1'], { attempt }),
            config,
          );
          await cri.startContainer(id);
          const { event, at } = await exitOf(id);
          lags.push(at - event.time);
        }
        const source = arrived.get([...arrived.keys()].at(-1) ?? '')?.event.source;
        context.log(
          `timeline: ${runtime.id} (${source}) lags ${lags.map((lag) => `${lag} ms`).join(', ')}`,
        );
        out.push({
          name: figure.name,
          value: round(median(lags), 0),
          unit: 'ms',
          target: { op: '<=', value: figure.target },
        });
      }
      return out;
    } finally {
      subscription.dispose();
      core.dispose();
      for (const { cri, podId } of pods) {
        await cri.stopPod(podId).catch(() => undefined);
        await cri.removePod(podId).catch(() => undefined);
        cri.dispose();
      }
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
