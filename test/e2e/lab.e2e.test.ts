/**
 * Porthole as a user sees it, against the real lab: the browser-mode host in-process with
 * the real core, driven in headless Chromium through page objects. The lab must be up
 * (`npm run lab -- up`); this suite never starts or stops it. Everything it creates on the
 * lab carries the label `e2e-run=<run id>` and is removed afterwards. Each test connects
 * the nodes and opens the views it needs; what a test creates beyond the suite's pods it
 * removes itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import type { Host } from '../../electron/core/host';
import { CriClient } from '../../electron/core/base/cri';
import type { NodeStatus } from '../../shared/model';
import {
  busyboxContainerConfig,
  LAB_IMAGES,
  labRuntimes,
  uiRuntime,
  podSandboxConfig,
  type LabRuntime,
  createLabContainer,
} from '../support/lab';
import { AppPage } from './pages/app-page';
import { ConfirmDialog, RunSpecDialog } from './pages/dialogs';
import { NodesPage } from './pages/nodes-page';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import { openApp, startBrowserHost, type OpenedApp } from './support/browser-app';
import { launchChromium } from './support/chromium';

const runId = Math.random().toString(36).slice(2, 8);
const runLabel = { 'e2e-run': runId };
const webPod = `e2e-${runId}-web`;
const dbPod = `e2e-${runId}-db`;
const specPod = `e2e-${runId}-spec`;
const stopPod = `e2e-${runId}-stop`;
const secondaryName = 'lab containerd 1.6';

const runtimes = labRuntimes();
// containerd 2.x first (see uiRuntime): it has container events, so changes show without polling.
const primary = uiRuntime();
const secondary = runtimes.find(
  (runtime) => runtime.id === 'containerd-1.6' && runtime !== primary,
);

interface Created {
  readonly podId: string;
  readonly containerIds: Record<string, string>;
}

async function createPod(
  client: CriClient,
  runtime: LabRuntime,
  name: string,
  labels: Record<string, string>,
  containers: readonly string[],
): Promise<Created> {
  const config = podSandboxConfig(name, { runtime, labels: { ...runLabel, ...labels } });
  const podId = await client.runPod(config);
  const containerIds: Record<string, string> = {};
  for (const container of containers) {
    const id = await createLabContainer(
      client,
      podId,
      busyboxContainerConfig(container, ['sleep', '3600'], { labels: { ...runLabel, ...labels } }),
      config,
    );
    await client.startContainer(id);
    containerIds[container] = id;
  }
  return { podId, containerIds };
}

async function removeRunPods(runtime: LabRuntime): Promise<void> {
  const client = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  try {
    const pods = await client.listPods({ labels: runLabel });
    for (const pod of pods) {
      await client.stopPod(pod.id).catch(() => undefined);
      await client.removePod(pod.id).catch(() => undefined);
    }
  } finally {
    client.dispose();
  }
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

describe('Porthole in the browser, against the lab', () => {
  let configDir: string;
  let core: Core;
  let host: Host;
  let browser: Browser;
  let opened: OpenedApp;
  let page: Page;
  let app: AppPage;
  let nodes: NodesPage;
  let cri: CriClient;
  let web: Created;

  /** The node with that endpoint, saved (as `name`) if Porthole does not know it. */
  async function nodeAt(endpoint: string, name: string): Promise<NodeStatus> {
    const known = (await core.services.nodes.list()).find((node) => node.endpoint === endpoint);
    if (known !== undefined) return known;
    const profile = await core.services.nodes.saveProfile({ kind: 'local', name, endpoint });
    const saved = (await core.services.nodes.list()).find((node) => node.nodeId === profile.id);
    if (saved === undefined) throw new Error(`no node for ${endpoint}`);
    return saved;
  }

  /** Connects the node at `endpoint` unless it is; returns what Porthole calls it. */
  async function connected(endpoint: string, name = endpoint): Promise<string> {
    const node = await nodeAt(endpoint, name);
    if (node.state !== 'connected') await core.services.nodes.connect(node.nodeId);
    return node.name;
  }

  /** The Containers view, filtered to this run's containers (another test's filters gone). */
  async function runContainers(): Promise<ResourcesPage> {
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.clearFilters();
    await containers.filter(runId);
    return containers;
  }

  /** The Containers view, filtered to this run's containers, `app`'s details open. */
  async function appDetail(): Promise<ResourcesPage> {
    await connected(primary.endpoint);
    const containers = await runContainers();
    await containers.row(/^app/).waitFor();
    await containers.open(/^app/);
    await expect
      .poll(() => containers.detail.getByRole('heading', { level: 2 }).textContent())
      .toBe('app');
    return containers;
  }

  beforeAll(async () => {
    cri = CriClient.create({ endpoint: primary.endpoint, timeoutMs: 30_000 });
    web = await createPod(cri, primary, webPod, { tier: 'frontend' }, ['app', 'sidecar']);
    await createPod(cri, primary, dbPod, { tier: 'db' }, ['postgres']);

    configDir = mkdtempSync(join(tmpdir(), 'porthole-e2e-'));
    // Discovery finds the lab runtime the way it finds any: through the variable crictl reads.
    core = createCore({ configDir, env: { CONTAINER_RUNTIME_ENDPOINT: primary.endpoint } });
    host = await startBrowserHost(core.services, core.events);
    browser = await launchChromium();
    opened = await openApp(browser, host);
    page = opened.page;
    app = new AppPage(page);
    nodes = new NodesPage(page);
    await page.getByRole('heading', { level: 1, name: 'Nodes' }).waitFor();
  });

  afterEach(async () => {
    if ((await page.getByRole('dialog').count()) > 0) await page.keyboard.press('Escape');
    expect(opened.pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await opened?.close();
    await browser?.close();
    await host?.close();
    core?.dispose();
    cri?.dispose();
    for (const runtime of runtimes) await removeRunPods(runtime);
    if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
  });

  it('connects to the lab node and shows its runtime', async () => {
    // Connected from its card, as a user does.
    const node = await nodeAt(primary.endpoint, primary.endpoint);
    if (node.state === 'connected') await core.services.nodes.disconnect(node.nodeId);
    await app.go('Nodes');
    const card = page.getByRole('article').filter({ hasText: primary.endpoint });
    await card.getByRole('button', { name: 'Connect' }).click();
    await card.getByRole('button', { name: 'Disconnect' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => card.textContent()).toContain(`containerd ${primary.versionFull}`);
    await expect
      .poll(() => card.getByRole('list', { name: /Capabilities/ }).textContent())
      .toContain('Container events');
    await screenshot(page, '01-nodes-connected');
  });

  it.runIf(secondary !== undefined)(
    'adds a second node with the form, so several nodes are connected at once',
    async () => {
      const runtime = secondary as LabRuntime;
      await connected(primary.endpoint);
      // Added with the form: a profile another test saved for it goes first.
      const saved = (await core.services.nodes.list()).find(
        (node) => node.endpoint === runtime.endpoint,
      );
      if (saved !== undefined) await core.services.nodes.removeProfile(saved.nodeId);
      await app.go('Nodes');
      await nodes.addNode(
        { name: secondaryName, endpoint: runtime.endpoint, timeoutSeconds: '20' },
        true,
      );
      await nodes.waitConnected(secondaryName);
      await expect.poll(() => nodes.card(secondaryName).textContent()).toContain('Polling');
      await expect.poll(() => app.navLink('Nodes').textContent()).toMatch(/2$/);
      await screenshot(page, '02-two-nodes');
    },
  );

  it('shows the pods and containers the test created', async () => {
    await connected(primary.endpoint);
    if (secondary !== undefined) await connected(secondary.endpoint, secondaryName);
    await app.go('Pods');
    const pods = new ResourcesPage(page, 'pods');
    await pods.row(webPod).waitFor();
    await expect.poll(() => pods.row(webPod).textContent()).toMatch(/ready.*2\/2/);
    await pods.row(dbPod).waitFor();
    if (secondary !== undefined) {
      // All nodes in scope: the table says which node each pod is on.
      await expect
        .poll(() => pods.grid.getByRole('columnheader').allTextContents())
        .toContain('Node');
    }
    await screenshot(page, '03-pods');

    const containers = await runContainers();
    await expect.poll(() => containers.rows.count()).toBe(3);
    await expect.poll(() => containers.row('sidecar').textContent()).toContain(webPod);
    await expect.poll(() => containers.row('postgres').textContent()).toContain(LAB_IMAGES.busybox);
  });

  it('filters by free text, label selector and state', async () => {
    await connected(primary.endpoint);
    const containers = await runContainers();
    await containers.filter(`${runId} side`);
    await expect.poll(() => containers.rows.count()).toBe(1);
    await containers.filter(runId);
    await containers.labels('tier!=db');
    await expect.poll(() => containers.rows.count()).toBe(2);
    await expect.poll(() => containers.count.textContent()).toMatch(/^2 of \d+ containers$/);
    await containers.labels(`e2e-run=${runId},tier in (db)`);
    await expect
      .poll(() => containers.rows.allTextContents())
      .toEqual([expect.stringContaining('postgres')]);
    await containers.labels('tier in (db');
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: 'Unbalanced' }).count())
      .toBe(1);
    await containers.labels('');
    await containers.state('exited');
    await expect.poll(() => containers.rows.count()).toBe(0);
    await page.getByText(/No containers match the filter/).waitFor();
    await screenshot(page, '04-filtered-empty');
    await containers.state('');
    await expect.poll(() => containers.rows.count()).toBe(3);
  });

  it("opens a detail pane with status, labels and the runtime's verbose info", async () => {
    const containers = await appDetail();
    await expect.poll(() => containers.detailSection('Status').textContent()).toContain('running');
    await expect
      .poll(() => containers.detailSection('Labels').textContent())
      .toContain(`e2e-run${runId}`);
    const info = containers.detailSection('Runtime info');
    await info.getByRole('list', { name: /Runtime info of app/ }).waitFor();
    // The first level is open; deeper levels open on demand.
    await expect.poll(() => info.textContent()).toContain('sandboxID');
    await info.getByRole('button', { name: 'Collapse info' }).click();
    await expect.poll(() => info.textContent()).not.toContain('sandboxID');
    await info.getByRole('button', { name: 'Expand info' }).click();
    await info.getByRole('button', { name: 'Expand runtimeSpec' }).click();
    await expect.poll(() => info.textContent()).toContain('ociVersion');
    await info.getByRole('button', { name: 'Copy JSON' }).click();
    await app.toast('Copied the runtime info as JSON').waitFor();
    expect(JSON.parse(await clipboard(page))).toHaveProperty('info');
    await screenshot(page, '05-container-detail');
  });

  it('copies the crictl command for an action', async () => {
    const containers = await appDetail();
    await containers.detailAction('crictl inspect').click();
    await expect
      .poll(() => clipboard(page))
      .toBe(`crictl --runtime-endpoint ${primary.endpoint} inspect ${web.containerIds.app ?? ''}`);
  });

  it('goes from a container to its pod, and from the pod to its containers', async () => {
    const containers = await appDetail();
    await containers.detailAction('Pod').click();
    const pods = new ResourcesPage(page, 'pods');
    await pods.detail.waitFor();
    await expect
      .poll(() => pods.detail.getByRole('heading', { level: 2 }).textContent())
      .toBe(webPod);
    await expect
      .poll(() => pods.detailSection('Network').textContent())
      .toMatch(/IP\d+\.\d+\.\d+\.\d+/);
    await screenshot(page, '06-pod-detail');
    await pods.detailAction(/Containers \(2\)/).click();
    await page.getByRole('heading', { level: 1, name: 'Containers' }).waitFor();
    await expect.poll(() => containers.rows.count()).toBe(2);
    await expect.poll(() => page.locator('.toolbar .chip').textContent()).toContain(webPod);
  });

  it('stops and removes a container, and watches it go', async () => {
    // A pod of its own: the other tests keep their containers.
    const victim = await createPod(cri, primary, stopPod, {}, ['doomed']);
    try {
      await stopAndRemove(victim.containerIds.doomed ?? '');
    } finally {
      await cri.stopPod(victim.podId).catch(() => undefined);
      await cri.removePod(victim.podId).catch(() => undefined);
    }
  });

  async function stopAndRemove(doomedId: string): Promise<void> {
    await connected(primary.endpoint);
    const containers = await runContainers();
    await containers.row('doomed').waitFor();
    await containers.open('doomed');
    const confirm = new ConfirmDialog(page);
    await containers.detailAction('Stop').click();
    await expect.poll(() => confirm.dialog.textContent()).toContain('doomed');
    // busybox's sleep ignores SIGTERM as pid 1: a short grace period keeps the test quick.
    await confirm.dialog.getByLabel('Grace period (seconds)').fill('1');
    await expect
      .poll(() => confirm.dialog.locator('code').last().textContent())
      .toBe(`crictl --runtime-endpoint ${primary.endpoint} stop --timeout 1 ${doomedId}`);
    await screenshot(page, '07-confirm-stop');
    await confirm.confirm();
    await app.toast('Stopped doomed').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => containers.row('doomed').textContent(), { timeout: 20_000 })
      .toContain('exited');

    await containers.detailAction('Remove').click();
    await confirm.confirm();
    await app.toast('Removed doomed').waitFor();
    await expect.poll(() => containers.row('doomed').count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => containers.detail.textContent()).toContain('no longer exists');
    await screenshot(page, '08-container-removed');
    await page.keyboard.press('Escape');
    await containers.detail.waitFor({ state: 'detached' });
  }

  it('runs a pod from YAML, with validation errors inline as you type', async () => {
    try {
      await runSpec(await connected(primary.endpoint));
    } finally {
      for (const pod of await cri.listPods({ labels: runLabel })) {
        if (pod.name !== specPod) continue;
        await cri.stopPod(pod.id).catch(() => undefined);
        await cri.removePod(pod.id).catch(() => undefined);
      }
    }
  });

  async function runSpec(primaryName: string): Promise<void> {
    await app.go('Pods');
    const run = new RunSpecDialog(page);
    await run.open();
    await expect.poll(() => run.status.textContent()).toContain('The spec is valid');
    await run.replaceText(`pod:
  metadata:
    name: ${specPod}
  labels:
    e2e-run: ${runId}
  log_dirctory: /tmp
containers:
  - metadata:
      name: clock
    command: [sleep, "3600"]
`);
    await expect
      .poll(() => run.problems.allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/line 6.*log_dirctory.*Unknown field/),
          expect.stringMatching(/containers\[0\]\.image.*required/),
        ]),
      );
    await expect.poll(() => run.dialog.locator('.cm-lintRange-error').count()).toBeGreaterThan(0);
    await screenshot(page, '09-spec-errors');

    await run.replaceText(`pod:
  metadata:
    name: ${specPod}
  labels:
    e2e-run: "${runId}"
  logDirectory: ${primary.podLogDir}/e2e-${runId}
containers:
  - metadata:
      name: clock
    image:
      image: ${LAB_IMAGES.busybox}
    command: [sh, -c, 'while true; do date; sleep 5; done']
    labels:
      e2e-run: "${runId}"
`);
    await expect.poll(() => run.status.textContent()).toContain('The spec is valid');
    await run.dialog.getByRole('combobox', { name: 'Node' }).selectOption({ label: primaryName });
    await run.run();
    await app.toast(`Started ${specPod} with 1 container`).waitFor({ timeout: 30_000 });
    const pods = new ResourcesPage(page, 'pods');
    await pods.detail.waitFor();
    await expect
      .poll(() => pods.detail.getByRole('heading', { level: 2 }).textContent())
      .toBe(specPod);
    await expect
      .poll(() => pods.detailSection(/Containers/).textContent(), { timeout: 20_000 })
      .toContain('clock');
    await screenshot(page, '10-spec-pod-running');
  }

  it('finds commands in the palette and moves with the keyboard', async () => {
    await connected(primary.endpoint);
    await (await runContainers()).filter('');
    await app.go('Nodes');
    const palette = await app.openPalette();
    await palette.input.fill('go cont');
    await screenshot(page, '11-palette');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Containers' }).waitFor();
    const containers = new ResourcesPage(page, 'containers');
    await page.keyboard.press('/');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('type')))
      .toBe('search');
    await page.keyboard.type(runId);
    await page.keyboard.press('Enter'); // to the table
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect.poll(() => containers.grid.locator('[aria-selected="true"]').count()).toBe(1);
    await page.keyboard.press('Enter');
    await containers.detail.waitFor();
    await page.keyboard.press('Escape');
    await containers.detail.waitFor({ state: 'detached' });
  });

  it('shows why a node with a dead socket cannot connect', async () => {
    await app.go('Nodes');
    const dead = `/tmp/porthole-e2e-${runId}/missing.sock`;
    await nodes.addNode({ name: 'dead socket', endpoint: dead });
    await nodes.card('dead socket').waitFor();
    await nodes.connect('dead socket');
    const error = nodes.error('dead socket');
    await error.waitFor({ timeout: 30_000 });
    await expect.poll(() => error.textContent()).toContain(`No runtime is listening at ${dead}`);
    await app.toast('Could not connect to dead socket').waitFor();
    await screenshot(page, '12-dead-socket');
  });

  it('looks right in the dark theme too', async () => {
    await connected(primary.endpoint);
    const dark = await openApp(browser, host, { colorScheme: 'dark' });
    try {
      const darkApp = new AppPage(dark.page);
      await dark.page.getByRole('article').first().waitFor();
      await screenshot(dark.page, '13-dark-nodes');
      await darkApp.go('Pods');
      const pods = new ResourcesPage(dark.page, 'pods');
      await pods.row(webPod).waitFor();
      await pods.open(webPod);
      await screenshot(dark.page, '14-dark-pod-detail');
      expect(dark.pageErrors).toEqual([]);
    } finally {
      await dark.close();
    }
  });
});
