/**
 * CRI-O as most nodes run it: `enable_pod_events = false`, its default, where
 * GetContainerEvents ends at once with OK and no events. The lab's CRI-O has events on, so
 * this suite starts a private one beside it (same programs, its own dirs and socket, no
 * pods) and checks that Porthole takes that for "events off on this node": it polls, says
 * why, and does not subscribe again and again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import { ResourceWatcher } from '../../electron/core/features/nodes';
import { runtimeSpec } from '../../scripts/lab/config';
import { prepareCrio, startCrio, stopCrio } from '../../scripts/lab/crio';
import { runtimeDirs } from '../../scripts/lab/state';
import type { AppError } from '../../shared/errors';
import { labDir, labRuntimes, labSkipped } from '../support/lab';

const labCrio = labRuntimes().find((runtime) => runtime.kind === 'cri-o');

describe.runIf(labCrio?.crio !== undefined)('CRI-O with pod events off (its default)', () => {
  let base: string;
  let endpoint = '';
  let stop: () => Promise<void> = () => Promise.resolve();

  beforeAll(async () => {
    const bins = labCrio?.crio;
    if (bins === undefined) return;
    // Under the lab dir: socket paths must stay short.
    base = await mkdtemp(join(labDir(), 'crio-off-'));
    // A network of its own that no lab uses (it runs no pods, so its bridge never exists):
    // cleaning up after it must not touch the bridge of any lab's CRI-O.
    const tag = base.slice(-4).replace(/[^A-Za-z0-9]/g, 'x');
    const spec = {
      ...runtimeSpec('cri-o', base),
      network: {
        name: `porthole-crio-off-${tag}`,
        bridge: `phoff-${tag}`,
        subnet: '10.213.255.0/24',
      },
    };
    const dirs = runtimeDirs('cri-o', base);
    await prepareCrio({ spec, dirs, bins, enablePodEvents: false });
    const pid = await startCrio({ spec, dirs, bins });
    endpoint = `unix://${dirs.socket}`;
    stop = () => stopCrio(spec, dirs, pid, bins.runc);
  });

  afterAll(async () => {
    await stop();
    if (base !== undefined) await rm(base, { recursive: true, force: true });
  });

  it('ends GetContainerEvents at once with OK: Porthole marks the events disabled', async () => {
    const client = CriClient.create({ endpoint });
    try {
      const ended = await new Promise<'complete' | AppError>((resolve) => {
        client.watchContainerEvents({
          next: () => undefined,
          error: resolve,
          complete: () => resolve('complete'),
        });
      });
      expect(ended).toBe('complete');
      expect(client.capabilities.get('containerEvents')).toBe('disabled');
      // The runtime itself is fine: everything else answers.
      expect((await client.version()).runtimeName).toBe('cri-o');
      expect(await client.listPods()).toEqual([]);
    } finally {
      client.dispose();
    }
  });

  it('connects the node with polling, and says the events are off', async () => {
    const dir = await mkdtemp(join(labDir(), 'crio-off-core-'));
    let core: Core | undefined;
    try {
      core = createCore({
        configDir: join(dir, 'config'),
        env: { CONTAINER_RUNTIME_ENDPOINT: endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
      });
      const nodeId = `local:${endpoint}`;
      const status = await core.services.nodes.connect(nodeId);
      expect(status).toMatchObject({ state: 'connected', runtime: { runtimeName: 'cri-o' } });
      // Learnt after connecting, from the stream ending at once: no connect waits on it.
      const services = core.services;
      await expect
        .poll(async () => (await services.nodes.list()).find((node) => node.nodeId === nodeId))
        .toMatchObject({ updates: 'polling', capabilities: { containerEvents: 'disabled' } });
    } finally {
      core?.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('polls instead of subscribing again when the stream ends that way', async () => {
    const client = CriClient.create({ endpoint });
    let subscriptions = 0;
    let refreshes = 0;
    const counting = {
      listPods: client.listPods.bind(client),
      listContainers: client.listContainers.bind(client),
      listImages: client.listImages.bind(client),
      watchContainerEvents: (observer: Parameters<CriClient['watchContainerEvents']>[0]) => {
        subscriptions += 1;
        return client.watchContainerEvents(observer);
      },
    };
    let unsupported = false;
    const watcher = new ResourceWatcher({
      nodeId: 'crio-off',
      client: counting,
      // Told to use events (as after a probe that saw them): it must find out by itself.
      useEvents: true,
      // A retry far shorter than the polls we wait for: a resubscribing watcher would show.
      timings: { pollIntervalMs: 100, eventsRetryMs: 50 },
      onHealth: () => {
        refreshes += 1;
      },
      onEventsUnsupported: () => {
        unsupported = true;
      },
    });
    try {
      await expect.poll(() => refreshes, { timeout: 20_000 }).toBeGreaterThanOrEqual(8);
      expect(unsupported).toBe(true);
      expect(watcher.mode).toBe('polling');
      expect(subscriptions).toBe(1);
    } finally {
      watcher.dispose();
      client.dispose();
    }
  });
});

if (labCrio === undefined) {
  describe('CRI-O with pod events off (its default)', () => {
    const reason = labSkipped().find((entry) => entry.id === 'cri-o')?.reason;
    it.skip(`not tested: ${reason ?? 'the lab runs no CRI-O'}`, () => undefined);
  });
}
