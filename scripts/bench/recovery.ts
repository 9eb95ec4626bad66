/**
 * The recovery bench: how fast a node comes back after its runtime restarts, through the
 * real core (createCore), against a lab runtime that is killed (SIGKILL, as a crash; its
 * pods keep running) and started again on the same socket (scripts/lab/restart.ts):
 *
 *   recovery_detect_ms          runtime killed → node `reconnecting`
 *   recovery_runtime_start_ms   new containerd spawned → its CRI ready (the runtime's own
 *                               start-up, for reference: Porthole can't beat it)
 *   recovery_connected_ms       new containerd spawned → node `connected`
 *   recovery_list_ms            new containerd spawned → the subscribed resource list
 *                               delivers its reset with the node's pod again
 *
 * Medians of 5 outages of 2 s each (long enough for the reconnect backoff to be under
 * way, as in a real restart). The figures include the backoff's wait: attempts run every
 * 250 ms doubling to 5 s, so the time after the runtime is back depends on where the
 * backoff was.
 *
 *   npm run bench -- --only recovery [--runtime 1.6]
 *
 * Targets: detected within 10 s, connected again within 5 s of the restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import type { NodeStatus, ResourceDelta } from '../../shared/model';
import { TEST_LABEL, busyboxContainerConfig, podSandboxConfig } from '../../test/support/lab';
import { restoreRuntime, startRuntime, stopRuntime } from '../../test/support/lab-runtime';
import { median, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

export const recoveryTargets = { recovery_detect_ms: 10_000, recovery_connected_ms: 5000 };

const rounds = 5;
const downMs = 2000;
const label = { [TEST_LABEL]: 'bench-recovery' };

/** Resolves with the time `test` first holds, checked on every change and now. */
function whenTrue(
  subscribe: (check: () => void) => () => void,
  test: () => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let stop = (): void => undefined;
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const check = (): void => {
      if (!test()) return;
      clearTimeout(timer);
      stop();
      resolve(Date.now());
    };
    stop = subscribe(check);
    check();
  });
}

async function run({ runtime, log }: BenchContext): Promise<BenchFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'porthole-bench-recovery-'));
  const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  const podName = `bench-recovery-${process.pid}`;
  const core = createCore({
    configDir: dir,
    env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
  });
  const nodeId = `local:${runtime.endpoint}`;
  const samples = {
    detect: [] as number[],
    start: [] as number[],
    connected: [] as number[],
    list: [] as number[],
  };
  try {
    const config = podSandboxConfig(podName, { runtime, labels: label });
    const podId = await cri.runPod(config);
    const id = await cri.createContainer(
      podId,
      busyboxContainerConfig('sleep', ['sleep', '3600']),
      config,
    );
    await cri.startContainer(id);
    await core.nodes.connect(nodeId);

    let status: NodeStatus | undefined;
    const statusListeners = new Set<() => void>();
    core.nodes.onDidChange(({ upserted }) => {
      status = upserted.find((node) => node.nodeId === nodeId) ?? status;
      for (const listener of [...statusListeners]) listener();
    });
    const onStatus = (check: () => void): (() => void) => {
      statusListeners.add(check);
      return () => statusListeners.delete(check);
    };
    let lastReset: ResourceDelta | undefined;
    const resetListeners = new Set<() => void>();
    const subscription = core.events.resources(
      { nodeId },
      {
        next: (delta) => {
          if (!delta.reset) return;
          lastReset = delta;
          for (const listener of [...resetListeners]) listener();
        },
        error: (error) => log(`resources ended: ${error.message}`),
      },
    );
    const onReset = (check: () => void): (() => void) => {
      resetListeners.add(check);
      return () => resetListeners.delete(check);
    };
    const hasPod = (): boolean =>
      lastReset?.pods.upserted.some((pod) => pod.name === podName) ?? false;
    await whenTrue(onReset, hasPod, 'the first list');

    for (let i = 0; i < rounds; i++) {
      lastReset = undefined;
      const down = whenTrue(onStatus, () => status?.state === 'reconnecting', 'reconnecting');
      const { signalledAt } = await stopRuntime(runtime.id);
      samples.detect.push((await down) - signalledAt);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      const connected = whenTrue(onStatus, () => status?.state === 'connected', 'connected');
      const listed = whenTrue(onReset, hasPod, 'the list with the pod');
      const { startedAt, readyAt } = await startRuntime(runtime.id);
      samples.start.push(readyAt - startedAt);
      samples.connected.push((await connected) - startedAt);
      samples.list.push((await listed) - startedAt);
      log(
        `round ${i + 1}: detected ${samples.detect.at(-1)} ms, runtime ready ${samples.start.at(-1)} ms, connected ${samples.connected.at(-1)} ms, list ${samples.list.at(-1)} ms`,
      );
    }
    subscription.dispose();
  } finally {
    await restoreRuntime(runtime.id);
    core.dispose();
    for (const pod of await cri.listPods({ labels: label }).catch(() => [])) {
      await cri.stopPod(pod.id).catch(() => undefined);
      await cri.removePod(pod.id).catch(() => undefined);
    }
    cri.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  const figure = (name: string, values: number[], target?: number): BenchFigure => ({
    name,
    value: round(median(values), 0),
    unit: 'ms',
    ...(target !== undefined && { target: { op: '<=', value: target } }),
  });
  return [
    figure('recovery_detect_ms', samples.detect, recoveryTargets.recovery_detect_ms),
    figure('recovery_runtime_start_ms', samples.start),
    figure('recovery_connected_ms', samples.connected, recoveryTargets.recovery_connected_ms),
    figure('recovery_list_ms', samples.list),
  ];
}

export const recoveryBench: BenchModule = { name: 'recovery', run };
