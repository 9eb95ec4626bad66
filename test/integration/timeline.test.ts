/**
 * The timeline against the lab's runtimes: containerd 1.6 (no container events: list
 * diffs), containerd 2.x (GetContainerEvents) and CRI-O (events when its pod events are
 * on, list diffs otherwise). A crash-looping container (three attempts exiting 3, each
 * created as the kubelet does after the previous one exited) and an OOM-killed one (a
 * 32 MiB memory limit that `head -c` into the pod's /dev/shm tmpfs exceeds) show with their
 * reasons, each transition once; a new core on the same config directory has them again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../electron/core/base/cri';
import { createCore, type Core } from '../../electron/core/composition';
import { discoveredNodeId } from '../../electron/core/features/nodes';
import type { TimelineEvent, TimelineUpdate } from '../../shared/model';
import { crashLoops } from '../../renderer/src/features/timeline/timeline-model';
import {
  busyboxContainerConfig,
  createLabContainer,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
} from '../support/lab';

/** The timeline as a view holds it. */
class Collected {
  events: TimelineEvent[] = [];
  private waiters: (() => void)[] = [];

  readonly sink = {
    next: (update: TimelineUpdate) => {
      this.events = update.reset ? [...update.events] : [...this.events, ...update.events];
      for (const wake of this.waiters.splice(0)) wake();
    },
    error: () => undefined,
  };

  async until(test: (events: TimelineEvent[]) => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 40_000;
    while (!test(this.events)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.events.map((e) => [e.kind, e.containerName, e.attempt, e.reason]);
        throw new Error(`Not ${what} within 40 s: ${JSON.stringify(seen)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

const runtimes = labRuntimes();

describe.each(runtimes.map((runtime) => [runtime.id, runtime] as const))(
  'the timeline on %s',
  (_id, runtime: LabRuntime) => {
    let dir: string;
    let core: Core;
    let cri: CriClient;
    const nodeId = discoveredNodeId(runtime.endpoint);
    const timeline = new Collected();
    const tag = `tl${Date.now().toString(36)}`;
    const pods: string[] = [];
    /** How the node is read: list diffs on 1.6, events on 2.x, CRI-O as configured. */
    const source = () =>
      runtime.id === 'containerd-1.6'
        ? 'polling'
        : runtime.id === 'containerd-2'
          ? 'events'
          : (core.nodes.statuses().find((status) => status.nodeId === nodeId)?.updates ?? 'events');

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'porthole-timeline-'));
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
      core = createCore({
        configDir: dir,
        logFile: false,
        env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, PORTHOLE_LAB_DIR: join(dir, 'none') },
      });
      await core.services.nodes.connect(nodeId);
      core.events.timeline(undefined, timeline.sink);
      await core.timeline.watching(nodeId);
    }, 60_000);

    afterAll(async () => {
      core?.dispose();
      for (const podId of pods) {
        await cri.stopPod(podId).catch(() => undefined);
        await cri.removePod(podId).catch(() => undefined);
      }
      cri?.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    const exitsOf = (events: TimelineEvent[], name: string) =>
      events.filter((event) => event.kind === 'exited' && event.containerName === name);

    it('shows a crash-looping container’s exits, restarts and the crash loop, each once', async () => {
      const config = podSandboxConfig(`${tag}-crash`, { runtime });
      const podId = await cri.runPod(config);
      pods.push(podId);
      const name = 'crasher';
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const id = await createLabContainer(
          cri,
          podId,
          busyboxContainerConfig(name, ['sh', '-c', `echo attempt ${attempt}; exit 3`], {
            attempt,
          }),
          config,
        );
        await cri.startContainer(id);
        await timeline.until(
          (events) => exitsOf(events, name).some((event) => event.containerId === id),
          `attempt ${attempt}'s exit on the timeline`,
        );
      }
      const mine = timeline.events.filter((event) => event.podId === podId);
      const exits = exitsOf(mine, name);
      expect(exits.map((event) => [event.attempt, event.exitCode, event.reason])).toEqual([
        [0, 3, 'Error'],
        [1, 3, 'Error'],
        [2, 3, 'Error'],
      ]);
      expect(exits.every((event) => event.source === source())).toBe(true);
      // Timed by the runtime. (containerd 1.6 stamps a quick exit a few ms before the start
      // it reports: its startedAt is taken after the task started.)
      for (const exit of exits) {
        const start = mine.find((e) => e.kind === 'started' && e.containerId === exit.containerId);
        expect(start).toBeDefined();
        expect(Math.abs(exit.time - (start?.time ?? 0))).toBeLessThan(10_000);
      }
      expect(
        mine.filter((event) => event.kind === 'created').map((event) => event.attempt),
      ).toEqual([0, 1, 2]);
      expect(mine.find((event) => event.kind === 'pod-ready')?.podName).toBe(`${tag}-crash`);
      // Each transition once, though events and re-lists both saw it.
      const keys = mine.map((event) => `${event.kind} ${event.containerId ?? ''}`);
      expect(new Set(keys).size).toBe(keys.length);
      const loop = crashLoops(timeline.events).get(`${nodeId}/${podId}/${name}`);
      expect(loop).toMatchObject({ exits: 3, lastAttempt: 2 });
    }, 150_000);

    it('shows an OOM-killed container with its reason', async () => {
      const config = podSandboxConfig(`${tag}-oom`, { runtime });
      const podId = await cri.runPod(config);
      pods.push(podId);
      const base = busyboxContainerConfig('hog', [
        'sh',
        '-c',
        'head -c 100m /dev/zero > /dev/shm/fill; echo survived; sleep 2',
      ]);
      const id = await createLabContainer(
        cri,
        podId,
        {
          ...base,
          linux: { ...base.linux, resources: { memoryLimitInBytes: String(32 * 1024 * 1024) } },
        },
        config,
      );
      await cri.startContainer(id);
      await timeline.until(
        (events) => exitsOf(events, 'hog').length > 0,
        "the hog's exit on the timeline",
      );
      expect(exitsOf(timeline.events, 'hog')[0]).toMatchObject({
        containerId: id,
        reason: 'OOMKilled',
        exitCode: 137,
        source: source(),
      });
    }, 90_000);

    it('has the same events after a restart of Porthole', async () => {
      const before = timeline.events;
      expect(before.length).toBeGreaterThan(0);
      core.dispose();
      core = createCore({
        configDir: dir,
        logFile: false,
        env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, PORTHOLE_LAB_DIR: join(dir, 'none') },
      });
      const again = new Collected();
      core.events.timeline(undefined, again.sink);
      await core.timeline.ready;
      expect(again.events.slice(0, before.length)).toEqual(before);
    });
  },
);
