import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import type { NodesDelta, ResourceDelta } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { defaultConfigDir } from './base/config';
import { logger } from './base/log';
import { createCore, type Core } from './composition';
import { discoveredNodeId } from './features/nodes';
import { discoverOnly, FakeNodeClient, fakeImage } from './features/nodes/testing/fake-node-client';

const endpoint = 'unix:///run/fake.sock';
const nodeId = discoveredNodeId(endpoint);

describe('the core services over the RPC', () => {
  let dir: string;
  let fake: FakeNodeClient;
  let core: Core;
  let client: RpcClient;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-services-'));
    fake = new FakeNodeClient(endpoint);
    fake.images = [{ ...fakeImage('sha256:bb'), repoTags: ['busybox:latest'] }];
    core = createCore({
      configDir: dir,
      discover: discoverOnly(endpoint),
      createClient: () => fake,
    });
    const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
    serve(serverPort, core.services, core.events);
    client = createClient(clientPort);
    await client.services.nodes.connect(nodeId);
  });

  afterEach(async () => {
    client.dispose();
    core.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const spec = `
pod:
  metadata: { name: web, namespace: demo }
containers:
  - metadata: { name: app }
    image: { image: busybox:latest }
    command: [sleep, "3600"]
  - metadata: { name: sidecar }
    image: { image: alpine:3 }
`;

  it('runs a pod and its containers from a spec, pulling a missing image', async () => {
    const result = await client.services.lifecycle.runFromSpec(nodeId, spec);
    expect(result).toEqual({ podSandboxId: 'pod1', containerIds: ['c1', 'c2'] });
    expect(fake.calls).toEqual(
      expect.arrayContaining(['runPod', 'imageStatus alpine:3', 'pullImage alpine:3']),
    );
    expect(fake.calls).not.toContain('pullImage busybox:latest');
    expect(fake.containers.map((c) => c.state)).toEqual(['running', 'running']);
  });

  it('removes the pod again when a step fails, and says which step', async () => {
    const original = fake.createContainer.bind(fake);
    fake.createContainer = (podId: string, config: Parameters<typeof original>[1]) =>
      config.metadata?.name === 'sidecar'
        ? Promise.reject(new AppError({ code: 'invalid-argument', message: 'bad mount' }))
        : original(podId, config);
    const error = await client.services.lifecycle
      .runFromSpec(nodeId, spec)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'invalid-argument',
      message: 'Failed creating container "sidecar": bad mount',
    });
    expect(fake.calls).toEqual(expect.arrayContaining(['stopPod pod1', 'removePod pod1']));
    expect(fake.pods).toEqual([]);
  });

  const specLoggingTo = (logDirectory: string): string =>
    spec.replace('namespace: demo }', `namespace: demo }\n  log_directory: ${logDirectory}`);

  it('creates the directory of each container log before creating the container', async () => {
    const logs = join(dir, 'logs', 'demo_web');
    await client.services.lifecycle.runFromSpec(nodeId, specLoggingTo(logs));
    // The default log paths, as the kubelet lays them out: <container>/<attempt>.log.
    expect(existsSync(join(logs, 'app'))).toBe(true);
    expect(existsSync(join(logs, 'sidecar'))).toBe(true);
  });

  it('says why when it cannot create a log directory, and removes the pod again', async () => {
    await writeFile(join(dir, 'a-file'), '');
    const error = (await client.services.lifecycle
      .runFromSpec(nodeId, specLoggingTo(join(dir, 'a-file', 'logs')))
      .catch((e: unknown) => e)) as AppError;
    expect(error).toMatchObject({
      code: 'failed-precondition',
      message: `Failed creating the log directory of container "app": ${join(dir, 'a-file', 'logs', 'app')} can't be created: a part of it exists and is not a directory.`,
    });
    expect(fake.calls.filter((call) => call.startsWith('createContainer'))).toEqual([]);
    expect(fake.calls).toEqual(expect.arrayContaining(['stopPod pod1', 'removePod pod1']));
  });

  it('stops a pod with the grace period chosen, and removes one without', async () => {
    await client.services.lifecycle.runFromSpec(nodeId, spec);
    await client.services.lifecycle.stopPod(nodeId, 'pod1', 7);
    expect(fake.stopGraces.get('pod1')).toBe(7);
    await client.services.lifecycle.removePod(nodeId, 'pod1');
    // Stopped again first, at once: RemovePodSandbox would wait out SIGTERM on CRI-O.
    expect(fake.stopGraces.get('pod1')).toBe(0);
    // (The timeline follows the node: its watcher's re-lists come between.)
    const changes = fake.calls.filter((call) => !call.startsWith('list'));
    expect(changes.slice(-2)).toEqual(['stopPod pod1', 'removePod pod1']);
    await expect(client.services.lifecycle.stopPod(nodeId, 'pod1', -1)).rejects.toMatchObject({
      code: 'invalid-argument',
    });
  });

  it('refuses an invalid spec with every problem in the detail', async () => {
    const error = (await client.services.lifecycle
      .runFromSpec(nodeId, 'pod: {}\ncontainers: [{}]')
      .catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toMatch(/problems/);
    expect(error.detail).toMatch(/pod\.metadata.*line 1/);
    expect(error.hint).toBeDefined();
    expect(fake.calls).not.toContain('runPod');
  });

  it('validates specs for the editor without a node', async () => {
    const { errors } = await client.services.lifecycle.validateSpec('pod:\n  metadata: {}\n');
    expect(errors).toEqual([
      { path: 'pod.metadata.name', line: 2, column: 13, message: 'This field is required.' },
    ]);
    expect((await client.services.lifecycle.validateSpec(spec)).errors).toEqual([]);
  });

  it('refuses malformed arguments before they reach the runtime', async () => {
    await expect(client.services.lifecycle.stopContainer(nodeId, 'c1', -1)).rejects.toMatchObject({
      code: 'invalid-argument',
    });
    await expect(
      client.services.lifecycle.removePod(42 as unknown as string, 'p'),
    ).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(
      client.services.lifecycle.pullImage(nodeId, 'x', { username: 'u' } as never),
    ).rejects.toMatchObject({ code: 'invalid-argument', message: /auth.password/ });
  });

  it('pushes the delta of a change right after it', async () => {
    fake.containers = [];
    const deltas: ResourceDelta[] = [];
    const subscription = client.subscribe('resources', { nodeId }, (d) => deltas.push(d));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deltas[0]?.reset).toBe(true);
    await client.services.lifecycle.removeImage(nodeId, 'sha256:bb');
    expect(deltas.at(-1)?.images.removed).toEqual(['sha256:bb']);
    subscription.dispose();
  });

  it('shows the log lines an action caused, redacted, within the contract bounds', async () => {
    const diagnostics = client.services.diagnostics;
    const tail = await diagnostics.recentLog();
    const connected = tail.entries.find((entry) => entry.message.startsWith('Connected '));
    expect(connected).toMatchObject({ level: 'info', scope: 'nodes' });
    logger('test').warn('GET /exec/SeCrEt1 with password=hunter2');
    const last = (await diagnostics.recentLog(1)).entries;
    expect(last).toHaveLength(1);
    expect(last[0]!.message).toBe('GET /exec/[redacted] with password=[redacted]');
    for (const count of [0, 501, 2.5, -1]) {
      await expect(diagnostics.recentLog(count)).rejects.toMatchObject({
        code: 'invalid-argument',
      });
    }
  });

  it('reports versions, node names, runtimes and capabilities, and no endpoint', async () => {
    const report = await client.services.diagnostics.report();
    expect(report.versions.node).toBe(process.versions.node);
    expect(report.nodes).toHaveLength(1);
    const [node] = report.nodes;
    expect(node).toMatchObject({ kind: 'local', state: 'connected' });
    expect(node!.runtime?.name).toBeTruthy();
    expect(node!.capabilities).toBeDefined();
    expect(JSON.stringify(report)).not.toContain('fake.sock');
  });

  it('sends node statuses on subscribe and on each change', async () => {
    const seen: NodesDelta[] = [];
    const subscription = client.subscribe('nodes', undefined, (delta) => seen.push(delta));
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ reset: true, upserted: [{ nodeId, state: 'connected' }] });
    await client.services.nodes.disconnect(nodeId);
    // Only the node that changed.
    await expect
      .poll(() => seen.at(-1))
      .toMatchObject({ reset: false, upserted: [{ nodeId, state: 'disconnected' }], removed: [] });
    subscription.dispose();
  });

  it('refuses a resources subscription with a bad argument', async () => {
    const error = await new Promise<AppError>((resolve) =>
      client.subscribe('resources', {} as { nodeId: string }, () => undefined, resolve),
    );
    expect(error.code).toBe('invalid-argument');
  });
});

describe('defaultConfigDir', () => {
  it('uses XDG_CONFIG_HOME when absolute, else ~/.config', () => {
    expect(defaultConfigDir({ XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/x/porthole');
    expect(defaultConfigDir({ XDG_CONFIG_HOME: 'rel' }, '/home/u')).toBe(
      '/home/u/.config/porthole',
    );
    expect(defaultConfigDir({}, '/home/u')).toBe('/home/u/.config/porthole');
  });
});
