/**
 * Container logs in the app's core, for real: the composed core (createCore) over the RPC
 * with JSON copies (as browser mode's WebSocket), against both lab runtimes. A busybox
 * container writes to stdout and stderr; the core finds its CRI log file, reads, tails,
 * filters and searches it, follows it while it grows, across a rotation the kubelet's
 * way (rename + ReopenContainerLog) and across one nobody finished (the core asks the
 * runtime to reopen), and reads the previous attempt. Over SSH, the same log is read from
 * a real OpenSSH server on this machine, over SFTP.
 *
 * Runs as root (the lab's log files are root's): checked up front.
 */
import { existsSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core, type CoreOptions } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import type { LogInfo, LogLine, LogUpdate, SessionSnapshot } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { rejection } from '../support/errors';
import {
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  type LabPodSandboxConfig,
  type LabRuntime,
  createLabContainer,
} from '../support/lab';
import { generateKey, Sshd } from '../support/sshd';

const caseLabel = 'porthole.case';

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

/** Everything a log holds now, in one view. */
async function allLines(
  client: RpcClient,
  logId: string,
  streams?: ('stdout' | 'stderr')[],
): Promise<LogLine[]> {
  const view = streams === undefined ? {} : { streams };
  const lines: LogLine[] = [];
  for (;;) {
    const page = await client.services.logs.lines(logId, view, lines.length, 5000);
    lines.push(...page.lines);
    if (page.lines.length === 0 || lines.length >= page.total) return lines;
  }
}

const texts = (lines: readonly LogLine[]): string[] => lines.map((line) => line.text);

/** The tick numbers a follow saw: they must be consecutive, none lost, none repeated. */
function ticks(lines: readonly LogLine[]): number[] {
  return lines
    .map((line) => /^tick (\d+)$/.exec(line.text)?.[1])
    .filter((tick): tick is string => tick !== undefined)
    .map(Number);
}

function expectConsecutive(numbers: readonly number[]): void {
  const first = numbers[0] ?? 0;
  expect(numbers).toEqual(numbers.map((_, i) => first + i));
}

function startCore(runtime: LabRuntime, dir: string, ssh?: CoreOptions['ssh']) {
  const core = createCore({
    configDir: join(dir, 'config'),
    env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
    ...(ssh !== undefined && { ssh }),
  });
  const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
  serve(serverPort, core.services, core.events);
  return { core, client: createClient(clientPort) };
}

it('runs as root, as the lab’s log files need', () => {
  expect(process.getuid?.()).toBe(0);
});

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const labels = { [caseLabel]: `logs-${runtime.id}` };
    let dir: string;
    let core: Core;
    let client: RpcClient;
    let cri: CriClient;
    let pod: LabPodSandboxConfig;
    let podId = '';
    let nodeId = '';
    /** Prints 50 lines to each stream, then a tick every 100 ms. */
    let printer = '';
    let printerPath = '';
    const opened: string[] = [];

    const open = async (
      request: Partial<Parameters<RpcClient['services']['logs']['open']>[0]>,
    ): Promise<LogInfo> => {
      const info = await client.services.logs.open({
        nodeId,
        containerId: printer,
        follow: false,
        ...request,
      });
      opened.push(info.logId);
      return info;
    };

    const start = async (name: string, script: string, attempt = 0): Promise<string> => {
      const id = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig(name, ['sh', '-c', script], { labels, attempt }),
        pod,
      );
      await cri.startContainer(id);
      return id;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'porthole-logs-'));
      ({ core, client } = startCore(runtime, dir));
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 20_000 });
      pod = podSandboxConfig('logs', { runtime, labels });
      podId = await cri.runPod(pod);
      printer = await start(
        'printer',
        'for i in $(seq 1 50); do echo "out $i"; echo "err $i" >&2; done; ' +
          'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.1; done',
      );
      const node = await eventually(async () => {
        const found = (await client.services.nodes.list()).find(
          (status) => status.endpoint === runtime.endpoint,
        );
        if (found === undefined) throw new Error('the lab runtime is not discovered yet');
        return found;
      });
      nodeId = node.nodeId;
      await client.services.nodes.connect(nodeId);
      printerPath = (await cri.containerStatus(printer)).logPath;
      // Until the first ticks are written.
      await eventually(async () => {
        const info = await open({ tailLines: 1 });
        const [last] = await allLines(client, info.logId);
        await client.services.logs.close(info.logId);
        expect(last?.text).toMatch(/^tick/);
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

    it('reads the log file: both streams, timestamps, the path the runtime reports', async () => {
      const info = await open({});
      expect(info).toMatchObject({
        nodeId,
        containerId: printer,
        containerName: 'printer',
        path: printerPath,
        following: false,
      });
      expect(info.sessionId).toBeUndefined();
      const lines = await allLines(client, info.logId);
      expect(lines.length).toBe(info.lineCount);
      const all = texts(lines);
      for (let i = 1; i <= 50; i += 1) {
        expect(all).toContain(`out ${i}`);
        expect(all).toContain(`err ${i}`);
      }
      const err7 = lines.find((line) => line.text === 'err 7');
      expect(err7).toMatchObject({ stream: 'stderr' });
      expect(err7?.timeText).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(Z|[+-]\d\d:\d\d)$/);
      expect(Math.abs((err7?.time ?? 0) - Date.parse(err7?.timeText ?? ''))).toBeLessThan(1);
      expect(Math.abs((err7?.time ?? 0) - Date.now())).toBeLessThan(120_000);
      expect(lines.map((line) => line.index)).toEqual(lines.map((_, i) => i));
    });

    it('filters by stream', async () => {
      const info = await open({});
      const stderr = await allLines(client, info.logId, ['stderr']);
      expect(texts(stderr)).toEqual(Array.from({ length: 50 }, (_, i) => `err ${i + 1}`));
      const stdout = await allLines(client, info.logId, ['stdout']);
      expect(stdout.every((line) => line.stream === 'stdout')).toBe(true);
      expect(stdout.length).toBe(info.lineCount - 50);
    });

    it('reads only the last N lines', async () => {
      const info = await open({ tailLines: 5 });
      const lines = await allLines(client, info.logId);
      expect(lines).toHaveLength(5);
      expectConsecutive(ticks(lines));
    });

    it('reads only the lines since a time', async () => {
      const from = await eventually(async () => {
        const everything = await allLines(client, (await open({})).logId);
        const found = everything.find((line) => line.text === 'tick 3');
        if (found === undefined) throw new Error('no tick 3 yet');
        return found;
      });
      const info = await open({ since: from.time });
      const lines = await allLines(client, info.logId);
      expect(lines.every((line) => line.time >= from.time)).toBe(true);
      expect(texts(lines)).toContain('tick 3');
      expect(texts(lines)).not.toContain('out 1');
    });

    it('searches in the core: plain text, case, regex, stream view, limit', async () => {
      const info = await open({});
      const stderrView = { streams: ['stderr' as const] };
      const plain = await client.services.logs.search(info.logId, stderrView, { text: 'ERR 4' });
      expect(plain.total).toBe(11);
      const stderr = await allLines(client, info.logId, ['stderr']);
      expect(plain.lines.map((index) => stderr[index]?.text)).toEqual([
        'err 4',
        ...Array.from({ length: 10 }, (_, i) => `err ${40 + i}`),
      ]);
      const exact = await client.services.logs.search(info.logId, stderrView, {
        text: 'ERR 4',
        caseSensitive: true,
      });
      expect(exact.total).toBe(0);
      const regex = await client.services.logs.search(
        info.logId,
        {},
        { text: '^(out|err) 1\\d$', regex: true },
        5,
      );
      expect(regex).toMatchObject({ total: 20, truncated: true });
      expect(regex.lines).toHaveLength(5);
      const broken = await rejection(
        client.services.logs.search(info.logId, {}, { text: '(', regex: true }),
      );
      expect(broken.code).toBe('invalid-argument');
    });

    it('follows the log as it grows, as a session in the monitor', async () => {
      const info = await open({ follow: true, tailLines: 3 });
      expect(info.following).toBe(true);
      expect(info.sessionId).toEqual(expect.any(String));
      const updates: LogUpdate[] = [];
      const subscription = client.subscribe('logs', { logId: info.logId }, (update) =>
        updates.push(update),
      );
      const sessions: (readonly SessionSnapshot[])[] = [];
      const watching = client.subscribe('sessions', undefined, (list) => sessions.push(list));
      try {
        await eventually(() => expect(updates.at(-1)?.lineCount).toBeGreaterThanOrEqual(13));
        const lines = await allLines(client, info.logId);
        expectConsecutive(ticks(lines));
        const session = await eventually(() => {
          const found = sessions.at(-1)?.find((candidate) => candidate.id === info.sessionId);
          expect(found?.bytesIn).toBeGreaterThan(0);
          return found;
        });
        expect(session).toMatchObject({
          kind: 'logs',
          nodeId,
          transport: 'file',
          state: 'active',
          detail: printerPath,
          target: { containerId: printer, containerName: 'printer', podName: 'logs' },
        });
        // Killing the session stops the follow; the log stays readable.
        await client.services.sessions.kill(info.sessionId ?? '');
        await eventually(() => expect(updates.at(-1)?.following).toBe(false));
        expect((await allLines(client, info.logId)).length).toBeGreaterThanOrEqual(13);
      } finally {
        subscription.dispose();
        watching.dispose();
      }
    });

    it('follows across a rotation: rename and ReopenContainerLog, as the kubelet does', async () => {
      const info = await open({ follow: true, tailLines: 1 });
      const updates: LogUpdate[] = [];
      const subscription = client.subscribe('logs', { logId: info.logId }, (update) =>
        updates.push(update),
      );
      try {
        await eventually(() => expect(updates.at(-1)?.lineCount).toBeGreaterThanOrEqual(4));
        const rotated = `${printerPath}.${Date.now()}`;
        renameSync(printerPath, rotated);
        await cri.reopenContainerLog(printer);
        expect(existsSync(printerPath)).toBe(true);
        await eventually(() => expect(updates.some((u) => u.rotated === 'rotated')).toBe(true));
        const before = (await allLines(client, info.logId)).length;
        await eventually(async () =>
          expect((await allLines(client, info.logId)).length).toBeGreaterThan(before + 5),
        );
        // Nothing lost or repeated across the two files.
        expectConsecutive(ticks(await allLines(client, info.logId)));
        unlinkSync(rotated);
      } finally {
        subscription.dispose();
      }
    });

    it('asks the runtime to reopen a followed log that was moved away and not reopened', async () => {
      const info = await open({ follow: true, tailLines: 1 });
      await eventually(async () =>
        expect((await allLines(client, info.logId)).length).toBeGreaterThanOrEqual(3),
      );
      const moved = `${printerPath}.moved`;
      renameSync(printerPath, moved);
      // Nobody reopens it: the core does, after its grace period.
      await eventually(() => expect(existsSync(printerPath)).toBe(true), 30_000);
      const before = (await allLines(client, info.logId)).length;
      await eventually(async () =>
        expect((await allLines(client, info.logId)).length).toBeGreaterThan(before + 3),
      );
      expectConsecutive(ticks(await allLines(client, info.logId)));
      unlinkSync(moved);
    });

    it('recreates a running container’s deleted log when opened to follow it', async () => {
      unlinkSync(printerPath);
      const once = await rejection(open({}));
      expect(once).toMatchObject({ code: 'not-found' });
      expect(once.hint).toMatch(/Follow/);
      const info = await open({ follow: true });
      expect(existsSync(printerPath)).toBe(true);
      await eventually(async () =>
        expect(ticks(await allLines(client, info.logId)).length).toBeGreaterThan(3),
      );
      expectConsecutive(ticks(await allLines(client, info.logId)));
    });

    it('reads the previous attempt, like kubectl logs --previous', async () => {
      const first = await start('restarter', 'echo "first attempt"; echo "bye" >&2; exit 3');
      await eventually(async () => expect((await cri.containerStatus(first)).state).toBe('exited'));
      const second = await start('restarter', 'echo "second attempt"; sleep 3600', 1);

      const none = await rejection(open({ containerId: first, previous: true }));
      expect(none).toMatchObject({ code: 'not-found' });
      expect(none.message).toMatch(/no previous attempt/);

      const previous = await open({ containerId: second, previous: true });
      expect(previous).toMatchObject({ containerId: first, containerName: 'restarter' });
      expect(texts(await allLines(client, previous.logId)).sort()).toEqual([
        'bye',
        'first attempt',
      ]);

      // Removed, its file is still found where the kubelet's layout puts it.
      const firstPath = (await cri.containerStatus(first)).logPath;
      await cri.removeContainer(first);
      const fromFile = await open({ containerId: second, previous: true });
      expect(fromFile.path).toBe(join(dirname(firstPath), '0.log'));
      expect(texts(await allLines(client, fromFile.logId)).sort()).toEqual([
        'bye',
        'first attempt',
      ]);

      // And once that is gone too, says so.
      unlinkSync(firstPath);
      const gone = await rejection(open({ containerId: second, previous: true }));
      expect(gone).toMatchObject({ code: 'not-found' });
      expect(gone.message).toMatch(/previous attempt of restarter \(attempt 0\) left no log/);
    });

    it('says clearly what is wrong: an unknown container, a closed log, a missing file', async () => {
      const unknown = await rejection(open({ containerId: 'no-such-container' }));
      expect(unknown.code).toBe('not-found');
      const closed = await rejection(client.services.logs.lines('no-such-log', {}, 0, 10));
      expect(closed).toMatchObject({
        code: 'not-found',
        message: 'That log is not open any more.',
      });
      const short = await start('short', 'echo once');
      await eventually(async () => expect((await cri.containerStatus(short)).state).toBe('exited'));
      unlinkSync((await cri.containerStatus(short)).logPath);
      const missing = await rejection(open({ containerId: short }));
      expect(missing.code).toBe('not-found');
      expect(missing.message).toContain('0.log');
      const badView = await rejection(
        client.services.logs.lines(
          (await open({})).logId,
          { streams: ['stdin' as 'stdout'] },
          0,
          1,
        ),
      );
      expect(badView.code).toBe('invalid-argument');
    });

    it('stops following when the node is disconnected', async () => {
      const info = await open({ follow: true, tailLines: 1 });
      const updates: LogUpdate[] = [];
      const subscription = client.subscribe('logs', { logId: info.logId }, (update) =>
        updates.push(update),
      );
      try {
        await client.services.nodes.disconnect(nodeId);
        const last = await eventually(() => {
          const update = updates.at(-1);
          expect(update?.following).toBe(false);
          return update;
        });
        expect(last?.error).toMatchObject({ code: 'connection-lost' });
        expect(last?.error?.message).toMatch(/disconnected/);
      } finally {
        subscription.dispose();
        await client.services.nodes.connect(nodeId);
      }
    });
  },
);

describe('over SSH', () => {
  const runtime = labRuntimes()[0] as LabRuntime;
  const labels = { [caseLabel]: 'logs-ssh' };
  let dir: string;
  let sshd: Sshd;
  let core: Core;
  let client: RpcClient;
  let cri: CriClient;
  let pod: LabPodSandboxConfig;
  let podId = '';
  let containerId = '';
  let nodeId = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'porthole-logs-ssh-'));
    const key = await generateKey(join(dir, 'id_ed25519'));
    sshd = await Sshd.create({ authorizedKeys: [key.publicKey] });
    const knownHostsPath = join(dir, 'known_hosts');
    writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
    ({ core, client } = startCore(runtime, dir, {
      configPaths: [],
      knownHostsPath,
      globalKnownHostsPaths: [],
      agentSocket: null,
      environment: { homeDir: dir },
      tempRoot: dir,
    }));
    cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 20_000 });
    pod = podSandboxConfig('logs-ssh', { runtime, labels });
    podId = await cri.runPod(pod);
    containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig(
        'ticker',
        ['sh', '-c', 'echo start; i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.1; done'],
        { labels },
      ),
      pod,
    );
    await cri.startContainer(containerId);
    const profile = await client.services.nodes.saveProfile({
      kind: 'ssh',
      name: 'lab over ssh',
      host: '127.0.0.1',
      port: sshd.port,
      user: 'root',
      identityFiles: [key.privateKeyPath],
      identitiesOnly: true,
      runtimeEndpoint: runtime.endpoint,
      connectTimeoutSeconds: 15,
      timeoutMs: 15_000,
    });
    nodeId = profile.id;
    await client.services.nodes.connect(nodeId);
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
    await sshd?.dispose();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('reads and follows a container’s log over SFTP', async () => {
    const info = await client.services.logs.open({ nodeId, containerId, follow: true });
    const updates: LogUpdate[] = [];
    const subscription = client.subscribe('logs', { logId: info.logId }, (update) =>
      updates.push(update),
    );
    try {
      expect(info.path).toBe((await cri.containerStatus(containerId)).logPath);
      await eventually(() => expect(updates.at(-1)?.lineCount).toBeGreaterThan(info.lineCount + 5));
      const lines = await allLines(client, info.logId);
      expect(lines[0]?.text).toBe('start');
      expectConsecutive(ticks(lines));
      const session = (
        await new Promise<readonly SessionSnapshot[]>((resolve) => {
          const once = client.subscribe('sessions', undefined, (list) => {
            once.dispose();
            resolve(list);
          });
        })
      ).find((candidate) => candidate.id === info.sessionId);
      expect(session).toMatchObject({ kind: 'logs', transport: 'sftp', state: 'active' });
      const found = await client.services.logs.search(info.logId, {}, { text: 'TICK 1' });
      expect(found.total).toBeGreaterThan(0);
    } finally {
      subscription.dispose();
      await client.services.logs.close(info.logId);
    }
  });

  it('reads the tail without following', async () => {
    const info = await client.services.logs.open({
      nodeId,
      containerId,
      follow: false,
      tailLines: 4,
    });
    const lines = await allLines(client, info.logId);
    expect(lines).toHaveLength(4);
    expectConsecutive(ticks(lines));
    await client.services.logs.close(info.logId);
  });
});
