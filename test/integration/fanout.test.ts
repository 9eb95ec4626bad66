/**
 * Run on many against the lab's runtimes (containerd 1.6, 2.x and CRI-O) as nodes of one
 * core: `hostname; cat /etc/hostname` over 30 containers, one per node made to differ, grouped and diffed as
 * the grid does; a container removed while its command runs is a row saying so; cancel
 * ends what still runs; the JSON lines export holds every row.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import { discoveredNodeId } from '../../electron/core/features/nodes';
import type { EventSink } from '../../shared/contract';
import type { AppError } from '../../shared/errors';
import type { FanoutRow, FanoutRunInfo, FanoutUpdate } from '../../shared/model';
import { sideBySide } from '../../renderer/src/features/fanout/diff';
import { groupRows, groupSummary } from '../../renderer/src/features/fanout/groups';
import {
  busyboxContainerConfig,
  createLabContainer,
  labDir,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
} from '../support/lab';

const runLabel = 'porthole.test/fanout';

/** A run's rows as the grid holds them: the reset, then each batch of changes. */
class RunRecorder implements EventSink<FanoutUpdate> {
  readonly rows = new Map<string, FanoutRow>();
  run: FanoutRunInfo | undefined;
  readonly errors: AppError[] = [];
  private waiters: (() => void)[] = [];

  next(update: FanoutUpdate): void {
    if (update.reset) this.rows.clear();
    for (const row of update.rows) this.rows.set(row.key, row);
    this.run = update.run;
    for (const wake of this.waiters.splice(0)) wake();
  }

  error(error: AppError): void {
    this.errors.push(error);
  }

  async until(test: () => boolean, what: string, timeoutMs = 25_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `Not ${what} within ${timeoutMs} ms: ${JSON.stringify([...this.rows.values()].map((r) => [r.containerName, r.state, r.reason, r.exitCode, r.durationMs]))}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  get list(): FanoutRow[] {
    return [...this.rows.values()];
  }
}

interface NodePods {
  readonly runtime: LabRuntime;
  readonly cri: CriClient;
  readonly nodeId: string;
  readonly podIds: string[];
  readonly containerIds: string[];
}

async function startPod(
  node: NodePods,
  name: string,
  hostname: string,
  containers: number,
  labels: Record<string, string>,
  command = ['sleep', '3600'],
): Promise<string[]> {
  const config = podSandboxConfig(name, { runtime: node.runtime, hostname, labels });
  const podId = await node.cri.runPod(config);
  node.podIds.push(podId);
  const ids: string[] = [];
  for (let index = 0; index < containers; index += 1) {
    const id = await createLabContainer(
      node.cri,
      podId,
      busyboxContainerConfig(`${name}-${index}`, command, { labels }),
      config,
    );
    await node.cri.startContainer(id);
    ids.push(id);
  }
  node.containerIds.push(...ids);
  return ids;
}

const runtimes = labRuntimes();
/** One odd container per node; the rest of the 30 are replicas. */
const identical = 30 - runtimes.length;

describe(`run on many over ${runtimes.map((r) => r.id).join(' and ')}`, () => {
  let dir: string;
  let core: Core;
  const nodes: NodePods[] = [];
  const tag = `t${Date.now().toString(36)}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-fanout-'));
    for (const runtime of runtimes) {
      nodes.push({
        runtime,
        cri: CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 }),
        nodeId: discoveredNodeId(runtime.endpoint),
        podIds: [],
        containerIds: [],
      });
    }
    // 30 containers: replicas and one odd one per node (10 a node with three runtimes).
    for (const [index, node] of nodes.entries()) {
      const replicas =
        Math.floor(identical / nodes.length) + (index < identical % nodes.length ? 1 : 0);
      await startPod(node, `fan-replicas-${index}`, 'replica', replicas, { [runLabel]: tag });
      await startPod(node, `fan-odd-${index}`, `odd-${index}`, 1, { [runLabel]: tag });
    }
    core = createCore({
      configDir: join(dir, 'config'),
      logFile: false,
      env: { PORTHOLE_LAB_DIR: labDir(), CRI_CONFIG_FILE: join(dir, 'none') },
    });
    for (const node of nodes) await core.services.nodes.connect(node.nodeId);
  });

  afterAll(async () => {
    core?.dispose();
    for (const node of nodes) {
      for (const podId of node.podIds) {
        await node.cri.stopPod(podId).catch(() => undefined);
        await node.cri.removePod(podId).catch(() => undefined);
      }
      node.cri.dispose();
    }
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it(`runs \`hostname; cat /etc/hostname\` on 30 containers, groups ${identical} identical and ${runtimes.length} that differ, and diffs them`, async () => {
    const preview = await core.services.fanout.preview({
      kind: 'labels',
      selector: `${runLabel}=${tag}`,
    });
    expect(preview).toHaveLength(30);
    const info = await core.services.fanout.start({
      targets: { kind: 'labels', selector: `${runLabel}=${tag}` },
      command: ['sh', '-c', 'hostname; cat /etc/hostname'],
      timeoutSeconds: 10,
      concurrency: 8,
    });
    expect(info.method).toMatchObject({ method: 'exec-sync' });
    expect(info.method.reason).toMatch(/short command/);
    const recorder = new RunRecorder();
    const subscription = core.events.fanout({ runId: info.runId }, recorder);
    await recorder.until(() => recorder.run?.state === 'done', 'done');
    subscription.dispose();
    const rows = recorder.list;
    expect(rows).toHaveLength(30);
    expect(rows.every((row) => row.state === 'exited' && row.exitCode === 0)).toBe(true);
    expect(new Set(rows.map((row) => row.nodeId))).toEqual(new Set(nodes.map((n) => n.nodeId)));
    const { groups } = groupRows(rows);
    expect(groups.map((group) => group.rows.length)).toEqual([identical, ...runtimes.map(() => 1)]);
    expect(groups[0]?.rows[0]?.stdout.text).toBe('replica\nreplica\n');
    expect(groupSummary(rows)).toBe(`${identical} identical, ${runtimes.length} differ`);
    const odd = groups[1]?.rows[0];
    expect(odd?.podName).toMatch(/^fan-odd-/);
    const diff = sideBySide(groups[0]?.rows[0]?.stdout.text ?? '', odd?.stdout.text ?? '');
    expect(diff.rows.map((row) => [row.kind, row.left?.text, row.right?.text])).toEqual([
      ['changed', 'replica', odd?.podName.replace('fan-odd', 'odd')],
      ['changed', 'replica', odd?.podName.replace('fan-odd', 'odd')],
    ]);
    const lines = (await core.services.fanout.exportJsonLines(info.runId)).trim().split('\n');
    expect(lines).toHaveLength(30);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ state: 'exited', exitCode: 0 });
  });

  it('shows a container removed mid-run as a row with its reason, and cancel ends the rest (streaming exec)', async () => {
    const node = nodes[nodes.length - 1] as NodePods;
    const label = { [runLabel]: `${tag}-long` };
    const ids = await startPod(node, 'fan-long', 'long', 3, label);
    const info = await core.services.fanout.start({
      targets: { kind: 'labels', selector: `${runLabel}=${tag}-long`, nodeIds: [node.nodeId] },
      command: ['sh', '-c', 'echo started; sleep 600'],
      timeoutSeconds: 0,
    });
    expect(info.method).toMatchObject({ method: 'stream' });
    const recorder = new RunRecorder();
    core.events.fanout({ runId: info.runId }, recorder);
    await recorder.until(
      () => recorder.list.filter((row) => row.stdout.text === 'started\n').length === 3,
      'all three started',
    );
    const victim = ids[1] as string;
    // As `crictl rm --force` does, without its grace: CRI-O's RemoveContainer on a running
    // container waits 30 s for a `sleep` that ignores SIGTERM.
    await node.cri.stopContainer(victim, 0);
    await node.cri.removeContainer(victim);
    await recorder.until(
      () => recorder.list.find((row) => row.containerId === victim)?.state === 'vanished',
      'the removed one vanished',
    );
    // The container is killed first: the row may be looked at while it is exited and not
    // yet gone, and either is what happened to it.
    expect(recorder.list.find((row) => row.containerId === victim)?.reason).toMatch(
      /^The container (was removed while the command ran\.|stopped while the command ran \(exited, exit code 137\b.*\)\.)$/,
    );
    expect(recorder.list.filter((row) => row.state === 'running')).toHaveLength(2);
    expect(recorder.list.find((row) => row.state === 'running')?.transport).toBe('spdy');
    await core.services.fanout.cancel(info.runId);
    await recorder.until(() => recorder.run?.state === 'cancelled', 'cancelled');
    expect(
      recorder.list
        .filter((row) => row.containerId !== victim)
        .map((row) => [row.state, row.reason]),
    ).toEqual([
      ['cancelled', 'Cancelled while it ran: its streams were closed.'],
      ['cancelled', 'Cancelled while it ran: its streams were closed.'],
    ]);
    // The rows' streaming sessions ended in the monitor as well.
    const live = core.sessions
      .list()
      .filter((s) => s.state === 'active' && s.detail?.startsWith('run on many'));
    expect(live).toEqual([]);
  });

  it('picks by name pattern across every node, and says when nothing matches', async () => {
    const rows = await core.services.fanout.preview({
      kind: 'name',
      pattern: '^fan-odd-[0-9]+-0$',
    });
    expect(rows.map((row) => row.podName).sort()).toEqual(
      nodes.map((_node, index) => `fan-odd-${index}`).sort(),
    );
    await expect(
      core.services.fanout.start({
        targets: { kind: 'name', pattern: '^no-such-container$' },
        command: ['true'],
      }),
    ).rejects.toMatchObject({ code: 'not-found', message: 'No running container matches.' });
  });
});
