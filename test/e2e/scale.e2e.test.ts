/**
 * The UI at scale and under live updates, without a runtime: the browser-mode host over
 * the fake core (three nodes, 5,000 containers), so it runs anywhere Chromium does. Each
 * test opens the view it needs.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../electron/core/host';
import { AppError } from '../../shared/errors';
import { createFakeCore, type FakeCore } from './fixtures/fake-core';
import { AppPage } from './pages/app-page';
import { ConfirmDialog } from './pages/dialogs';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import { openApp, startBrowserHost, type OpenedApp } from './support/browser-app';
import { launchChromium } from './support/chromium';

const nodes = 3;
const containersPerPod = 2;
const podsPerNode = Math.ceil(5000 / nodes / containersPerPod);
const total = nodes * podsPerNode * containersPerPod;

describe('Porthole with 5,000 containers on three nodes', () => {
  let core: FakeCore;
  let host: Host;
  let browser: Browser;
  let opened: OpenedApp;
  let page: Page;
  let app: AppPage;
  let containers: ResourcesPage;

  beforeAll(async () => {
    core = createFakeCore({ nodes, podsPerNode, containersPerPod });
    host = await startBrowserHost(core.services, core.events);
    browser = await launchChromium();
    opened = await openApp(browser, host);
    page = opened.page;
    app = new AppPage(page);
    containers = new ResourcesPage(page, 'containers');
  });

  afterEach(() => {
    expect(opened.pageErrors).toEqual([]);
  });

  /** The Containers table, sorted by age, its last row selected (with the keyboard). */
  async function lastRowSelected(): Promise<Locator> {
    await app.go('Containers');
    const age = containers.grid.getByRole('columnheader', { name: /Age/ });
    if ((await age.getAttribute('aria-sort')) !== 'ascending') {
      await containers.grid.getByRole('button', { name: /Age/ }).click();
      await expect.poll(() => age.getAttribute('aria-sort')).toBe('ascending');
    }
    await containers.rows.first().click();
    await page.keyboard.press('End');
    const selected = containers.grid.locator('[aria-selected="true"]');
    await expect.poll(() => selected.getAttribute('aria-rowindex')).toBe(String(total + 1));
    await expect.poll(() => selected.isVisible()).toBe(true);
    return selected;
  }

  afterAll(async () => {
    await opened?.close();
    await browser?.close();
    await host?.close();
  });

  it('lists every container, with the node each is on', async () => {
    await app.go('Containers');
    await expect
      .poll(() => containers.count.textContent())
      .toBe(`${total.toLocaleString('en-US')} containers`);
    await expect
      .poll(() => containers.grid.getByRole('columnheader').allTextContents())
      .toContain('Node');
    // Virtualised: a screenful of rows in the DOM, not thousands.
    expect(await containers.rows.count()).toBeLessThan(80);
    await screenshot(page, '15-5000-containers');
  });

  it('sorts by a column and moves to the last row with the keyboard', async () => {
    await lastRowSelected();
  });

  it('applies live updates in place, keeping the selection and the scroll position', async () => {
    const selected = await lastRowSelected();
    const key = (await selected.getAttribute('data-key')) ?? '';
    const scrollTop = (): Promise<number> =>
      containers.grid.evaluate((element) => element.scrollTop);
    const before = await scrollTop();
    const [nodeId, id] = key.split('\u0000');
    const container = await core.services.resources.containerDetail(nodeId ?? '', id ?? '');
    core.push({
      nodeId: nodeId ?? '',
      reset: false,
      pods: { upserted: [], removed: [] },
      containers: {
        upserted: [
          {
            ...container,
            nodeId: nodeId ?? '',
            state: container.state === 'running' ? 'exited' : 'running',
          },
        ],
        removed: [],
      },
      images: { upserted: [], removed: [] },
      updatedAt: Date.now(),
    });
    const expected = container.state === 'running' ? 'exited' : 'running';
    await expect.poll(() => selected.textContent()).toContain(expected);
    expect(await selected.getAttribute('data-key')).toBe(key);
    expect(await scrollTop()).toBe(before);
  });

  it('shows a node whose stream failed, and retries it', async () => {
    await app.go('Containers');
    const nodeId = core.nodeIds[1] ?? '';
    core.failStream(
      nodeId,
      new AppError({
        code: 'unavailable',
        message: 'The runtime stopped answering.',
        hint: 'Check that containerd is running on the node.',
      }),
    );
    const banner = page.getByRole('alert').filter({ hasText: 'stopped updating' });
    await banner.waitFor();
    await expect
      .poll(() => banner.textContent())
      .toContain('Check that containerd is running on the node.');
    await screenshot(page, '16-stream-failed');
    await banner.getByRole('button', { name: 'Retry' }).click();
    await banner.waitFor({ state: 'detached' });
  });

  it('resizes the detail pane from the keyboard', async () => {
    await app.go('Containers');
    await containers.open(/./);
    const splitter = page.getByRole('separator', { name: 'Resize the details pane' });
    const before = Number(await splitter.getAttribute('aria-valuenow'));
    await splitter.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect
      .poll(async () => Number(await splitter.getAttribute('aria-valuenow')))
      .toBe(before + 32);
    await page.keyboard.press('Escape');
    await containers.detail.waitFor({ state: 'detached' });
  });

  it('pulls an image with credentials, and removes it', async () => {
    await app.go('Images');
    const images = new ResourcesPage(page, 'images');
    await page.getByRole('button', { name: 'Pull image…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pull an image' });
    await dialog.getByLabel('Image').fill('docker.io/library/alpine:3.20');
    await dialog.getByText('Registry credentials (optional)').click();
    await dialog.getByLabel('User name').fill('robot');
    await dialog.getByLabel('Password or token').fill('s3cret');
    // The crictl equivalent asks for the password instead of showing it.
    await expect
      .poll(() => dialog.locator('code').textContent())
      .toMatch(/pull --username robot docker\.io\/library\/alpine:3\.20$/);
    await screenshot(page, '18-pull-image');
    await page.keyboard.press('Enter');
    await app.toast(/^Pulled docker\.io\/library\/alpine:3\.20/).waitFor();
    await images.filter('alpine');
    await expect.poll(() => images.rows.count()).toBe(1);
    await images.open('alpine');
    await images.detailAction('Remove').click();
    await new ConfirmDialog(page).confirm();
    await app.toast('Removed image docker.io/library/alpine:3.20').waitFor();
    await expect.poll(() => images.rows.count()).toBe(0);
    await page.keyboard.press('Escape');
  });

  it('looks right in the dark theme', async () => {
    const dark = await openApp(browser, host, { colorScheme: 'dark' });
    try {
      const darkContainers = new ResourcesPage(dark.page, 'containers');
      await new AppPage(dark.page).go('Containers');
      await darkContainers.rows.first().waitFor();
      await darkContainers.open(/./);
      await screenshot(dark.page, '17-dark-5000-containers');
      expect(dark.pageErrors).toEqual([]);
    } finally {
      await dark.close();
    }
  });
});
