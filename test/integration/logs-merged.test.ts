/**
 * A pod's logs as one stream, for real: three busybox containers in one pod print
 * interleaved numbered lines (one of them to stderr too); the composed core, over the RPC
 * with JSON copies, merges their CRI logs by timestamp. Checked: the merged order against
 * the timestamps, each container's own lines all there and in order, the container and
 * stream filters, search mapped into the merged view, and a follow across a rotation the
 * kubelet's way (rename + ReopenContainerLog) of one container's log.
 *
 * Runs as root (the lab's log files are root's).
 */
import { mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import type { LogLine, LogUpdate, LogView, MergedLogInfo } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import {
  busyboxContainerConfig,
  createLabContainer,
  labRuntimes,
  podSandboxConfig,
  type LabPodSandboxConfig,
  type LabRuntime,
} from '../support/lab';

async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function allLines(client: RpcClient, logId: string, view: LogView = {}): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  for (;;) {
    const page = await client.services.logs.lines(logId, view, lines.length, 5000);
    lines.push(...page.lines);
    if (page.lines.length === 0 || lines.length >= page.total) return lines;
  }
}

/** The numbers a container printed as `<name> <n>`, in the order the merged view has them. */
function numbersOf(lines: readonly LogLine[], name: string): number[] {
  return lines
    .map((line) => new RegExp(`^${name} (\\d+)$`).exec(line.text)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
}

function expectConsecutive(numbers: readonly number[]): void {
  const first = numbers[0] ?? 0;
  expect(numbers).toEqual(numbers.map((_, i) => first + i));
}

/** Adjacent lines whose timestamps go backwards: none, in a merged stream. */
function outOfOrder(lines: readonly LogLine[]): string[] {
  const wrong: string[] = [];
  for (let i = 1; i < lines.length; i += 1) {
    const [before, after] = [lines[i - 1], lines[i]];
    if (before !== undefined && after !== undefined && after.time < before.time) {
      wrong.push(`${before.timeText} ${before.text} > ${after.timeText} ${after.text}`);
    }
  }
  return wrong;
}

it('runs as root, as the lab’s log files need', () => {
  expect(process.getuid?.()).toBe(0);
});

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const labels = { 'porthole.case': `logs-merged-${runtime.id}` };
    let dir: string;
    let core: Core;
    let client: RpcClient;
    let cri: CriClient;
    let pod: LabPodSandboxConfig;
    let podId = '';
    let nodeId = '';
    /** alpha, bravo, charlie: each prints `<name> <n>` at its own pace. */
    const containers: { id: string; name: string }[] = [];
    const opened: string[] = [];

    const openMerged = async (
      options: { follow?: boolean; tailLines?: number; since?: number } = {},
    ): Promise<MergedLogInfo> => {
      const info = await client.services.logs.openMerged({
        targets: containers.map(({ id }) => ({ nodeId, containerId: id })),
        follow: options.follow ?? false,
        ...(options.tailLines !== undefined && { tailLines: options.tailLines }),
        ...(options.since !== undefined && { since: options.since }),
      });
      opened.push(info.logId);
      return info;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'porthole-logs-merged-'));
      core = createCore({
        configDir: join(dir, 'config'),
        env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
      });
      const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
      serve(serverPort, core.services, core.events);
      client = createClient(clientPort);
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 20_000 });
      pod = podSandboxConfig('logs-merged', { runtime, labels });
      podId = await cri.runPod(pod);
      const scripts: [name: string, script: string][] = [
        ['alpha', 'i=0; while true; do echo "alpha $i"; i=$((i+1)); sleep 0.03; done'],
        ['bravo', 'i=0; while true; do echo "bravo $i"; i=$((i+1)); sleep 0.05; done'],
        [
          'charlie',
          'i=0; while true; do echo "charlie $i"; echo "charlie-err $i" >&2; i=$((i+1)); sleep 0.07; done',
        ],
      ];
      for (const [name, script] of scripts) {
        const id = await createLabContainer(
          cri,
          podId,
          busyboxContainerConfig(name, ['sh', '-c', script], { labels }),
          pod,
        );
        await cri.startContainer(id);
        containers.push({ id, name });
      }
      const node = await eventually(async () => {
        const found = (await client.services.nodes.list()).find(
          (status) => status.endpoint === runtime.endpoint,
        );
        if (found === undefined) throw new Error('the lab runtime is not discovered yet');
        return found;
      });
      nodeId = node.nodeId;
      await client.services.nodes.connect(nodeId);
      // Until each has written a few lines.
      await eventually(async () => {
        const info = await openMerged();
        const lines = await allLines(client, info.logId);
        await client.services.logs.close(info.logId);
        for (const { name } of containers) {
          expect(numbersOf(lines, name).length).toBeGreaterThan(5);
        }
      });
    });

    afterEach(async () => {
      for (const logId of opened.splice(0)) {
        await client.services.logs.close(logId).catch(() => undefined);
      }
    });

    afterAll(async () => {
      client?.dispose();
      core?.dispose();
      if (podId !== '') {
        await cri.stopPod(podId).catch(() => undefined);
        await cri.removePod(podId).catch(() => undefined);
        rmSync(pod.logDirectory, { recursive: true, force: true });
      }
      cri?.dispose();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('merges the containers’ logs in timestamp order, each line with its container', async () => {
      const info = await openMerged();
      expect(info.following).toBe(false);
      expect(info.sources.map((source) => source.containerName)).toEqual([
        'alpha',
        'bravo',
        'charlie',
      ]);
      expect(info.sources.every((source) => source.podName === 'logs-merged')).toBe(true);
      const lines = await allLines(client, info.logId);
      expect(lines.length).toBe(info.lineCount);
      expect(outOfOrder(lines)).toEqual([]);
      expect(lines.map((line) => line.index)).toEqual(lines.map((_, i) => i));
      // The merge is by time, not by container: they interleave.
      const switches = lines.filter((line, i) => i > 0 && line.source !== lines[i - 1]?.source);
      expect(switches.length).toBeGreaterThan(10);
      containers.forEach(({ name }, source) => {
        const own = lines.filter((line) => line.source === source);
        expect(own.every((line) => line.text.startsWith(name))).toBe(true);
        expectConsecutive(numbersOf(lines, name));
      });
      expect(lines.find((line) => line.text.startsWith('charlie-err'))?.stream).toBe('stderr');
    });

    it('filters by container and by stream, and searches across the containers', async () => {
      const info = await openMerged();
      const bravo = await allLines(client, info.logId, { sources: [1] });
      expect(bravo.length).toBeGreaterThan(5);
      expect(bravo.every((line) => line.source === 1 && line.text.startsWith('bravo '))).toBe(true);
      const stderr = await allLines(client, info.logId, { streams: ['stderr'] });
      expect(stderr.every((line) => line.text.startsWith('charlie-err '))).toBe(true);
      const both = await allLines(client, info.logId, { sources: [0, 2], streams: ['stdout'] });
      expect(both.every((line) => line.source !== 1 && line.stream === 'stdout')).toBe(true);
      expect(outOfOrder(both)).toEqual([]);

      const view = { sources: [0, 2] };
      const viewLines = await allLines(client, info.logId, view);
      const found = await client.services.logs.search(info.logId, view, { text: ' 3' });
      const expected = viewLines.flatMap((line, i) => (line.text.includes(' 3') ? [i] : []));
      expect(found.lines).toEqual(expected);
      expect(found.total).toBe(expected.length);
      const regex = await client.services.logs.search(
        info.logId,
        {},
        { text: '^(alpha|bravo) 1$', regex: true },
      );
      const all = await allLines(client, info.logId);
      expect(regex.lines.map((i) => all[i]?.text)).toEqual(
        all.filter((line) => /^(alpha|bravo) 1$/.test(line.text)).map((line) => line.text),
      );
    });

    it('takes the last lines of each container', async () => {
      const info = await openMerged({ tailLines: 4 });
      const lines = await allLines(client, info.logId);
      expect(lines.filter((line) => line.source === 0)).toHaveLength(4);
      expect(lines.filter((line) => line.source === 1)).toHaveLength(4);
      expect(lines.filter((line) => line.source === 2)).toHaveLength(4);
      expect(outOfOrder(lines)).toEqual([]);
    });

    it('follows all of them in order, across a rotation of one container’s log', async () => {
      const info = await openMerged({ follow: true, tailLines: 2 });
      expect(info.following).toBe(true);
      const updates: LogUpdate[] = [];
      const subscription = client.subscribe('logs', { logId: info.logId }, (update) =>
        updates.push(update),
      );
      try {
        await eventually(() => expect(updates.at(-1)?.lineCount).toBeGreaterThan(30));
        const bravo = containers[1];
        const path = (await cri.containerStatus(bravo?.id ?? '')).logPath;
        const rotated = `${path}.${Date.now()}`;
        renameSync(path, rotated);
        await cri.reopenContainerLog(bravo?.id ?? '');
        await eventually(() => expect(updates.some((u) => u.rotated === 'rotated')).toBe(true));
        const before = numbersOf(await allLines(client, info.logId), 'bravo').length;
        await eventually(async () =>
          expect(numbersOf(await allLines(client, info.logId), 'bravo').length).toBeGreaterThan(
            before + 10,
          ),
        );
        const lines = await allLines(client, info.logId);
        // Nothing lost or repeated across the two files, and still in time order.
        for (const { name } of containers) expectConsecutive(numbersOf(lines, name));
        expect(outOfOrder(lines)).toEqual([]);
        unlinkSync(rotated);
      } finally {
        subscription.dispose();
      }
    });

    it('refuses an empty or oversized selection', async () => {
      const logs = client.services.logs;
      await expect(logs.openMerged({ targets: [], follow: false })).rejects.toMatchObject({
        code: 'invalid-argument',
      });
      const many = Array.from({ length: 33 }, () => ({
        nodeId,
        containerId: containers[0]?.id ?? '',
      }));
      await expect(logs.openMerged({ targets: many, follow: false })).rejects.toMatchObject({
        code: 'invalid-argument',
      });
    });
  },
);
