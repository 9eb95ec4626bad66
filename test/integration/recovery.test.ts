/**
 * A node whose runtime restarts comes back by itself, on both lab runtimes: containerd is
 * killed (SIGKILL, as a crash: its pods keep running) under a connected node and started
 * again on the same socket (test/support/lab-runtime.ts), through the real core and RPC.
 *
 * - With a subscribed list, an open terminal and a running forward: the node goes to
 *   `reconnecting` within 10 s and back to `connected` by itself; the list resumes with a
 *   reset that has the pod again; the forward serves again on the same local port; the
 *   terminal ends saying its process may still run, Porthole finds that process in the
 *   container and ends it, and a new terminal opens.
 * - With nothing subscribed: the same health and reconnect, seen in the node status.
 *
 * How long recovery takes is a bench (scripts/bench/recovery.ts), not asserted here.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import type { Disposable } from '../../shared/lifecycle';
import {
  applyNodesDelta,
  type NodeStatus,
  type ResourceDelta,
  type TerminalEvent,
  type TerminalInfo,
} from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import {
  TEST_LABEL,
  TEST_NAMESPACE,
  busyboxContainerConfig,
  createLabContainer,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
} from '../support/lab';
import { restoreRuntime, startRuntime, stopRuntime } from '../support/lab-runtime';
import { runtimeFacts } from '../support/runtime-facts';

const suffix = randomBytes(3).toString('hex');
const label = { [TEST_LABEL]: 'recovery' };

/** Waits on a condition (vi.waitFor): runtimes take their time to stop and start. */
function eventually<T>(probe: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(probe, { timeout: 30_000, interval: 50 });
}

function fetchBody(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path: '/hello', agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(body));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error('timed out')));
  });
}

/** One terminal as a pane sees it: its text and its exit. */
class Terminal implements Disposable {
  text = '';
  exit: Extract<TerminalEvent, { type: 'exit' }> | undefined;
  private readonly subscription: Disposable;

  constructor(
    private readonly client: RpcClient,
    readonly info: TerminalInfo,
  ) {
    this.subscription = client.subscribe('terminal', { terminalId: info.terminalId }, (event) => {
      if (event.type === 'exit') {
        this.exit = event;
        return;
      }
      if (event.type !== 'output') return;
      const data = Buffer.from(event.data);
      this.text += data.toString('utf8');
      client.notify.terminals.ack(info.terminalId, data.length);
    });
  }

  async echo(word: string): Promise<void> {
    this.client.notify.terminals.write(
      this.info.terminalId,
      new TextEncoder().encode(`echo ${word}-$((1+1))\r`),
    );
    await eventually(() => expect(this.text).toContain(`${word}-2`));
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const nodeId = `local:${runtime.endpoint}`;
    const podName = `recovery-${suffix}`;
    let dir: string;
    let cri: CriClient;
    let core: Core;
    let client: RpcClient;
    let shell = '';
    let nodes: readonly NodeStatus[] = [];
    const disposables: Disposable[] = [];

    const status = (): NodeStatus | undefined => nodes.find((node) => node.nodeId === nodeId);

    /** An ash terminal in the shell container, as a pane opens it. */
    const openShell = async (): Promise<Terminal> => {
      const info = await client.services.terminals.open({
        nodeId,
        containerId: shell,
        kind: 'exec',
        command: ['ash'],
        cols: 80,
        rows: 24,
      });
      const terminal = new Terminal(client, info);
      disposables.push(terminal);
      return terminal;
    };

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'porthole-recovery-'));
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
      const config = podSandboxConfig(podName, { runtime, labels: label });
      const podId = await cri.runPod(config);
      const web = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig('web', [
          'sh',
          '-c',
          'mkdir -p /www && echo hello-from-pod > /www/hello && exec httpd -f -p 8080 -h /www',
        ]),
        config,
      );
      await cri.startContainer(web);
      shell = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig('shell', ['sleep', '3600']),
        config,
      );
      await cri.startContainer(shell);
      core = createCore({
        configDir: dir,
        env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
      });
      const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
      serve(serverPort, core.services, core.events);
      client = createClient(clientPort);
      disposables.push(
        client.subscribe('nodes', undefined, (delta) => (nodes = applyNodesDelta(nodes, delta))),
      );
    });

    afterAll(async () => {
      // Whatever happened, the lab's runtime runs again for the tests after this one.
      await restoreRuntime(runtime.id);
      for (const disposable of disposables.splice(0)) disposable.dispose();
      client?.dispose();
      core?.dispose();
      if (cri !== undefined) {
        for (const pod of await cri.listPods({ labels: label }).catch(() => [])) {
          await cri.stopPod(pod.id).catch(() => undefined);
          await cri.removePod(pod.id).catch(() => undefined);
        }
        cri.dispose();
      }
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it('comes back with its list, forward and a new terminal; the old shell is found and ended', async () => {
      await client.services.nodes.connect(nodeId);
      const deltas: ResourceDelta[] = [];
      const listErrors: unknown[] = [];
      disposables.push(
        client.subscribe(
          'resources',
          { nodeId },
          (delta) => deltas.push(delta),
          (error) => listErrors.push(error),
        ),
      );
      await eventually(() =>
        expect(deltas.some((d) => d.pods.upserted.some((p) => p.name === podName))).toBe(true),
      );
      const forward = await client.services.forwards.create(nodeId, {
        target: { kind: 'pod', namespace: TEST_NAMESPACE, name: podName },
        ports: [{ localPort: 0, remotePort: 8080 }],
      });
      const port = forward.live?.ports[0]?.localPort ?? 0;
      expect(await fetchBody(port)).toBe('hello-from-pod\n');
      const before = await openShell();
      await before.echo('before');

      const stopped = await stopRuntime(runtime.id);
      const down = await eventually(() => {
        const current = status();
        expect(current?.state).toBe('reconnecting');
        return current;
      });
      // Noticed within 10 s of the runtime going away, and said since when.
      expect(down?.outage?.since).toBeGreaterThanOrEqual(stopped.stoppedAt - 1000);
      expect((down?.outage?.since ?? Infinity) - stopped.stoppedAt).toBeLessThan(10_000);
      expect(down?.runtimeAsOf).toBeDefined();
      // The terminal ends with a reason: its shell may live on in the container.
      const exit = await eventually(() => {
        expect(before.exit).toBeDefined();
        return before.exit;
      });
      expect(exit?.mayStillRun).toBe(true);
      expect(exit?.reason).toMatch(/may still be running in the container/);
      const resetsBefore = deltas.filter((d) => d.reset).length;

      await startRuntime(runtime.id);
      await eventually(() => expect(status()?.state).toBe('connected'));
      expect(status()?.outage).toBeUndefined();
      // The list resumes with a reset that has the pod, then deltas; it never ended.
      await eventually(() => {
        const resets = deltas.filter((d) => d.reset);
        expect(resets.length).toBeGreaterThan(resetsBefore);
        expect(resets.at(-1)?.pods.upserted.some((p) => p.name === podName)).toBe(true);
      });
      expect(listErrors).toEqual([]);
      // The forward serves again, on the same local port.
      await eventually(async () => expect(await fetchBody(port)).toBe('hello-from-pod\n'));
      const entry = (await client.services.forwards.list()).find((f) => f.id === forward.id);
      expect(entry?.live).toMatchObject({ state: { name: 'active' } });
      expect(entry?.live?.ports[0]?.localPort).toBe(port);

      // Where the old shell outlived the daemon (containerd's shim runs it), Porthole finds
      // it and ends it; on CRI-O it died with crio, and Porthole finds nothing.
      const ref = {
        nodeId,
        containerId: shell,
        command: before.info.command,
        openedAt: before.info.openedAt,
      };
      const leftover = await client.services.terminals.findLeftover(ref);
      if (runtimeFacts(runtime).execSurvivesDaemon) {
        expect(leftover).toMatchObject({ command: ['ash'] });
        if (leftover === undefined) throw new Error('the shell is gone');
        expect(['terminated', 'killed']).toContain(
          await client.services.terminals.endLeftover(ref, leftover),
        );
      }
      expect(await client.services.terminals.findLeftover(ref)).toBeUndefined();

      // And a new terminal opens.
      const after = await openShell();
      await after.echo('after');
      await client.services.terminals.close(after.info.terminalId);
      await client.services.forwards.remove(forward.id);
    });

    it('comes back by itself with nothing subscribed, and a new list has the pod', async () => {
      await client.services.nodes.connect(nodeId);
      await eventually(() => expect(status()?.state).toBe('connected'));
      const stopped = await stopRuntime(runtime.id);
      const down = await eventually(() => {
        expect(status()?.state).toBe('reconnecting');
        return status();
      });
      expect((down?.outage?.since ?? Infinity) - stopped.stoppedAt).toBeLessThan(10_000);
      // It keeps trying meanwhile.
      await eventually(() => expect(status()?.outage?.attempt).toBeGreaterThanOrEqual(2));
      await startRuntime(runtime.id);
      await eventually(() => expect(status()?.state).toBe('connected'));
      const deltas: ResourceDelta[] = [];
      const subscription = client.subscribe('resources', { nodeId }, (delta) => deltas.push(delta));
      disposables.push(subscription);
      await eventually(() =>
        expect(deltas[0]?.pods.upserted.some((p) => p.name === podName)).toBe(true),
      );
      subscription.dispose();
    });

    it('removes a node with a saved forward: kept, it stops and can move; removed, it goes', async () => {
      await client.services.nodes.disconnect(nodeId);
      const target = { kind: 'pod', namespace: TEST_NAMESPACE, name: podName } as const;
      const savedNode = async (name: string) => {
        const profile = await client.services.nodes.saveProfile({
          kind: 'local',
          name,
          endpoint: runtime.endpoint,
        });
        await client.services.nodes.connect(profile.id);
        const forward = await client.services.forwards.create(
          profile.id,
          { target, ports: [{ localPort: 0, remotePort: 8080 }] },
          { save: true, name: `web-${name}` },
        );
        expect(await fetchBody(forward.live?.ports[0]?.localPort ?? 0)).toBe('hello-from-pod\n');
        return { profile, forward };
      };

      // Keep: stopped, saying why, named after the node it was on; then moved and started.
      const kept = await savedNode('lab-kept');
      await client.services.nodes.removeProfile(kept.profile.id, { forwards: 'keep' });
      const orphan = await eventually(async () => {
        const entry = (await client.services.forwards.list()).find((f) => f.id === kept.forward.id);
        expect(entry).toMatchObject({ orphaned: true, nodeName: 'lab-kept', saved: true });
        return entry;
      });
      expect(orphan?.live).toBeUndefined();
      expect(orphan?.lastError?.message).toBe('Stopped because lab-kept was removed.');
      // The runtime is still discovered on this machine: move the forward there.
      await client.services.nodes.connect(nodeId);
      const moved = await client.services.forwards.move(kept.forward.id, nodeId);
      expect(moved).toMatchObject({ nodeId, saved: true, name: 'web-lab-kept' });
      expect(moved.orphaned).toBeUndefined();
      const started = await client.services.forwards.start(kept.forward.id);
      expect(await fetchBody(started.live?.ports[0]?.localPort ?? 0)).toBe('hello-from-pod\n');
      await client.services.forwards.remove(kept.forward.id);

      // Remove: the forward goes with the node, from forwards.json too.
      await client.services.nodes.disconnect(nodeId);
      const removed = await savedNode('lab-removed');
      await client.services.nodes.removeProfile(removed.profile.id, { forwards: 'remove' });
      expect((await client.services.forwards.list()).some((f) => f.id === removed.forward.id)).toBe(
        false,
      );
      const file = JSON.parse(await readFile(join(dir, 'forwards.json'), 'utf8')) as {
        forwards: unknown[];
      };
      expect(file.forwards).toEqual([]);
    });
  },
);
