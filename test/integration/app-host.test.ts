/**
 * The app's core in browser mode against real containerd (1.6 and 2.x, from the lab): the
 * host refuses pages and sockets without the token or from another origin, and a real
 * browser-side RPC client lists the lab's runtime, connects it, and watches its resources
 * change as pods come and go — by runtime events on 2.x, by polling on 1.6.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { stringify } from 'yaml';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import { startHost, type Host } from '../../electron/core/host';
import { openRpcSocket } from '../../electron/core/host/testing';
import { webSocketPort } from '../../electron/core/host/websocket-port';
import type { AppError } from '../../shared/errors';
import type { ResourceDelta } from '../../shared/model';
import { createClient, type RpcClient } from '../../shared/rpc';
import {
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  TEST_LABEL,
  type LabRuntime,
  createLabContainer,
} from '../support/lab';
import { runtimeFacts } from '../support/runtime-facts';

function status(host: Host, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: host.port, path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

function upgradeStatus(host: Host, cookie: string | undefined, origin: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/rpc`, {
      origin,
      ...(cookie !== undefined && { headers: { cookie } }),
    });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(-1));
  });
}

async function connectClient(host: Host): Promise<RpcClient> {
  return createClient(webSocketPort(await openRpcSocket(host)));
}

/** Collects a subscription's payloads and waits for one that matches. */
class Recorder {
  readonly deltas: ResourceDelta[] = [];
  error: AppError | undefined;
  private waiters: { test: (d: ResourceDelta) => boolean; done: (d: ResourceDelta) => void }[] = [];

  push = (delta: ResourceDelta): void => {
    this.deltas.push(delta);
    this.waiters = this.waiters.filter((w) => {
      if (!w.test(delta)) return true;
      w.done(delta);
      return false;
    });
  };

  next(test: (d: ResourceDelta) => boolean, timeoutMs = 15_000): Promise<ResourceDelta> {
    const seen = this.deltas.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching delta within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        done: (d) => {
          clearTimeout(timer);
          resolve(d);
        },
      });
    });
  }
}

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const { containerEvents } = runtimeFacts(runtime);
    const nodeId = `local:${runtime.endpoint}`;
    let dir: string;
    let core: Core;
    let host: Host;
    let client: RpcClient;
    let cri: CriClient;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'porthole-app-'));
      await mkdir(join(dir, 'static'));
      await writeFile(join(dir, 'static', 'index.html'), '<!doctype html><title>Porthole</title>');
      core = createCore({
        configDir: join(dir, 'config'),
        // Only the lab's runtime: no crictl.yaml, no system sockets.
        env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
      });
      host = await startHost({
        staticDir: join(dir, 'static'),
        services: core.services,
        events: core.events,
      });
      client = await connectClient(host);
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 15_000 });
    });

    afterAll(async () => {
      client?.dispose();
      await host?.close();
      core?.dispose();
      // Whatever a failed test left behind.
      if (cri !== undefined) {
        const pods = await cri.listPods({ labels: { [TEST_LABEL]: 'app-host' } }).catch(() => []);
        for (const pod of pods) {
          await cri.stopPod(pod.id).catch(() => undefined);
          await cri.removePod(pod.id).catch(() => undefined);
        }
        cri.dispose();
      }
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it('refuses the page without a link, and a link twice', async () => {
      const link = new URL(host.issueUrl());
      expect(await status(host, '/')).toBe(401);
      expect(await status(host, '/?token=wrong')).toBe(403);
      expect(await status(host, `${link.pathname}${link.search}`)).toBe(200);
      expect(await status(host, `${link.pathname}${link.search}`)).toBe(403);
    });

    it('refuses WebSocket upgrades without the login cookie or from another origin', async () => {
      expect(await upgradeStatus(host, undefined, host.origin)).toBe(401);
      expect(await upgradeStatus(host, 'porthole-1=wrong', host.origin)).toBe(401);
      expect(await upgradeStatus(host, host.loginCookie, 'http://evil.example')).toBe(403);
    });

    it('lists the lab runtime and connects it', async () => {
      const nodes = await client.services.nodes.list();
      expect(nodes.map((n) => n.nodeId)).toContain(nodeId);
      const connected = await client.services.nodes.connect(nodeId);
      expect(connected).toMatchObject({
        nodeId,
        state: 'connected',
        origin: 'discovered',
        runtime: { runtimeName: runtime.kind },
      });
      // Connecting doesn't wait for the event stream: the node says how it is kept fresh
      // once the stream has answered (or was refused).
      await expect
        .poll(
          async () => {
            const node = (await client.services.nodes.list()).find((n) => n.nodeId === nodeId);
            return [node?.updates, node?.capabilities?.containerEvents];
          },
          { timeout: 15_000 },
        )
        .toEqual(containerEvents ? ['events', 'supported'] : ['polling', 'unsupported']);
    });

    it('streams a reset, then a delta for a pod created outside Porthole and its removal', async () => {
      await client.services.nodes.connect(nodeId); // connected already, unless run alone
      const recorder = new Recorder();
      const subscription = client.subscribe(
        'resources',
        { nodeId },
        recorder.push,
        (e) => (recorder.error = e),
      );
      try {
        const reset = await recorder.next((d) => d.reset);
        expect(reset.nodeId).toBe(nodeId);
        expect(reset.images.upserted.length).toBeGreaterThan(0);

        const config = podSandboxConfig('app-host-outside', {
          runtime,
          labels: { [TEST_LABEL]: 'app-host' },
        });
        const podId = await cri.runPod(config);
        const containerId = await createLabContainer(
          cri,
          podId,
          busyboxContainerConfig('sleeper', ['sleep', '3600']),
          config,
        );
        await cri.startContainer(containerId);
        const added = await recorder.next(
          (d) =>
            !d.reset &&
            d.containers.upserted.some((c) => c.id === containerId && c.state === 'running'),
        );
        expect(added.containers.upserted.find((c) => c.id === containerId)?.nodeId).toBe(nodeId);
        await recorder.next((d) => d.pods.upserted.some((p) => p.id === podId));

        await cri.stopPod(podId);
        await cri.removePod(podId);
        const removed = await recorder.next((d) => d.pods.removed.includes(podId));
        expect(removed.reset).toBe(false);
        await recorder.next((d) => d.containers.removed.includes(containerId));
        // Only changes are sent: no delta repeats the unchanged images.
        const later = recorder.deltas.slice(1);
        expect(later.every((d) => d.images.upserted.length === 0)).toBe(true);
        expect(recorder.error).toBeUndefined();
      } finally {
        subscription.dispose();
      }
    });

    it('runs a pod from a YAML spec (creating its log directory), validates bad ones, stops it with a grace that a SIGTERM-ignoring PID 1 waits out, and removes it', async () => {
      await client.services.nodes.connect(nodeId); // connected already, unless run alone
      const recorder = new Recorder();
      const subscription = client.subscribe('resources', { nodeId }, recorder.push);
      try {
        await recorder.next((d) => d.reset);
        const bad = await client.services.lifecycle.validateSpec(
          'pod:\n  metadata: { name: x }\ncontainers:\n  - metadata: { name: a }\n    imagee: {}\n',
        );
        expect(bad.errors).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ path: 'containers[0].imagee', line: 5 }),
            expect.objectContaining({ path: 'containers[0].image' }),
          ]),
        );
        await expect(
          client.services.lifecycle.runFromSpec(nodeId, 'pod: {}'),
        ).rejects.toMatchObject({ code: 'invalid-argument', hint: expect.any(String) as string });

        const pod = podSandboxConfig('app-host-spec', {
          runtime,
          labels: { [TEST_LABEL]: 'app-host' },
        });
        const spec = stringify({
          pod,
          containers: [busyboxContainerConfig('web', ['sleep', '3600'])],
        });
        expect((await client.services.lifecycle.validateSpec(spec)).errors).toEqual([]);
        const result = await client.services.lifecycle.runFromSpec(nodeId, spec);
        expect(result.containerIds).toHaveLength(1);
        // Porthole's own changes are pushed at once, not at the next poll.
        await recorder.next((d) => d.pods.upserted.some((p) => p.id === result.podSandboxId));

        // The log directory (web/) was made by Porthole: CRI-O refuses to create it.
        expect(existsSync(join(pod.logDirectory, 'web'))).toBe(true);

        // `sleep` as PID 1 ignores SIGTERM: every runtime waits out the grace chosen.
        const grace = 2;
        const started = performance.now();
        await client.services.lifecycle.stopPod(nodeId, result.podSandboxId, grace);
        const seconds = (performance.now() - started) / 1000;
        expect(seconds).toBeGreaterThanOrEqual(grace - 0.25);
        expect(seconds).toBeLessThan(grace + 8);
        await client.services.lifecycle.removePod(nodeId, result.podSandboxId);
        await recorder.next((d) => d.pods.removed.includes(result.podSandboxId));
      } finally {
        subscription.dispose();
      }
    });

    it('ends subscriptions with an AppError when the node disconnects', async () => {
      await client.services.nodes.connect(nodeId); // connected already, unless run alone
      const recorder = new Recorder();
      const ended = new Promise<AppError>((resolve) =>
        client.subscribe('resources', { nodeId }, recorder.push, resolve),
      );
      await recorder.next((d) => d.reset);
      await client.services.nodes.disconnect(nodeId);
      await expect(ended).resolves.toMatchObject({ code: 'failed-precondition' });
      await expect(client.services.resources.podDetail(nodeId, 'nope')).rejects.toMatchObject({
        code: 'failed-precondition',
        hint: 'Connect the node first.',
      });
    });
  },
);
