/**
 * The Run on many bench: one `true` on 50 running containers across the lab's two
 * containerds (25 each, or 50 on one where only one runs), through the real core.
 *
 *   fanout_exec_50_ms   start() called → the `fanout` event carries the run's last row
 *                       ended (the grid's last row, as the core delivers it; the paint
 *                       after it is not in the figure)
 *
 * Median of 5 runs, ExecSync (auto: a 10 s timeout), the default fan-out of 8.
 *
 *   npm run bench -- --only fanout
 *
 * Target: ≤ 1.5 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import { discoveredNodeId } from '../../electron/core/features/nodes';
import type { FanoutUpdate } from '../../shared/model';
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
const total = 50;

export const fanoutBench: BenchModule = {
  name: 'fanout',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const runtimes = labRuntimes()
      .filter((runtime) => runtime.id.startsWith('containerd'))
      .slice(0, 2);
    const tag = `bench-${Date.now().toString(36)}`;
    const labels = { 'porthole.bench/fanout': tag };
    const clients = runtimes.map((runtime) =>
      CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 60_000 }),
    );
    const pods: { cri: CriClient; podId: string }[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'porthole-bench-fanout-'));
    const core = createCore({
      configDir: join(dir, 'config'),
      logFile: false,
      env: { PORTHOLE_LAB_DIR: labDir(), CRI_CONFIG_FILE: join(dir, 'none') },
    });
    try {
      for (const [index, runtime] of runtimes.entries()) {
        const cri = clients[index] as CriClient;
        const config = podSandboxConfig(`bench-fanout-${index}`, { runtime, labels });
        const podId = await cri.runPod(config);
        pods.push({ cri, podId });
        const count = Math.round(total / runtimes.length);
        for (let c = 0; c < count; c += 1) {
          const id = await createLabContainer(
            cri,
            podId,
            busyboxContainerConfig(`c${c}`, ['sleep', '3600'], { labels }),
            config,
          );
          await cri.startContainer(id);
        }
        await core.services.nodes.connect(discoveredNodeId(runtime.endpoint));
      }
      context.log(`fanout: ${total} containers on ${runtimes.map((r) => r.id).join(' and ')}`);
      const times: number[] = [];
      for (let round_ = 0; round_ < rounds; round_ += 1) {
        const started = performance.now();
        const info = await core.services.fanout.start({
          targets: { kind: 'labels', selector: `porthole.bench/fanout=${tag}` },
          command: ['true'],
        });
        await new Promise<void>((resolve, reject) => {
          const subscription = core.events.fanout(
            { runId: info.runId },
            {
              next: (update: FanoutUpdate) => {
                if (update.run.state !== 'running') {
                  queueMicrotask(() => subscription.dispose());
                  const failed = update.rows.filter((row) => row.state !== 'exited');
                  if (update.reset && failed.length > 0)
                    reject(new Error(`${failed.length} rows did not exit`));
                  resolve();
                }
              },
              error: reject,
            },
          );
        });
        times.push(performance.now() - started);
        await core.services.fanout.close(info.runId);
      }
      return [
        {
          name: 'fanout_exec_50_ms',
          value: round(median(times), 0),
          unit: 'ms',
          target: { op: '<=', value: 1500 },
        },
      ];
    } finally {
      core.dispose();
      for (const { cri, podId } of pods) {
        await cri.stopPod(podId).catch(() => undefined);
        await cri.removePod(podId).catch(() => undefined);
      }
      for (const cri of clients) cri.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
