/**
 * A runtime restart as a user sees it, in headless Chromium against the lab: with the Pods
 * list open, the lab's containerd is killed (as a crash) and started again on the same
 * socket. The list says the node is down since when and that Porthole is reconnecting,
 * hides the node's pods with a count (never "runs no pods"); the node card says
 * reconnecting, with its runtime facts marked as last known; once the runtime is back the
 * node is connected and the pod is listed again, without the user doing anything.
 * Screenshots of the down and the recovered states go to test/e2e/artifacts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreRuntime, startRuntime, stopRuntime } from '../support/lab-runtime';
import { AppPage } from './pages/app-page';
import { NodesPage } from './pages/nodes-page';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('recovery');
const podName = lab.podName('outage');

describe('a runtime restart, as a user sees it', () => {
  let page: Page;
  let app: AppPage;

  beforeAll(async () => {
    await lab.runPod('outage', { app: ['sleep', '3600'] });
    page = (await lab.open()).page;
    app = new AppPage(page);
  });

  afterAll(async () => {
    await restoreRuntime(lab.runtime.id);
    await lab.close();
  });

  it('shows the node down and reconnecting, then back with its pods, by itself', async () => {
    const pods = new ResourcesPage(page, 'pods');
    const nodes = new NodesPage(page);
    await app.go('Pods');
    await pods.row(podName).waitFor();

    await stopRuntime(lab.runtime.id);
    const banner = page.getByRole('status').filter({ hasText: /is down since \d\d:\d\d:\d\d/ });
    await banner.waitFor({ timeout: 15_000 });
    await expect
      .poll(() => banner.textContent())
      .toMatch(/Porthole is reconnecting.*pods? (is|are) hidden until it is back/);
    expect(await pods.row(podName).count()).toBe(0);
    expect(await page.getByText('runs no pods').count()).toBe(0);
    await screenshot(page, 'recovery-down-pods');

    await app.go('Nodes');
    const card = nodes.card(/containerd/);
    await expect.poll(() => nodes.state(/containerd/).textContent()).toBe('reconnecting');
    await expect.poll(() => card.textContent()).toMatch(/Last known, as of \d\d:\d\d:\d\d/);
    await card.getByRole('button', { name: 'Retry now' }).waitFor();
    await screenshot(page, 'recovery-down-node');

    await startRuntime(lab.runtime.id);
    await expect
      .poll(() => nodes.state(/containerd/).textContent(), { timeout: 15_000 })
      .toBe('connected');
    expect(await card.textContent()).not.toMatch(/Last known/);
    await screenshot(page, 'recovery-back-node');

    await app.go('Pods');
    await pods.row(podName).waitFor({ timeout: 15_000 });
    expect(await banner.count()).toBe(0);
    await screenshot(page, 'recovery-back-pods');
  });
});
