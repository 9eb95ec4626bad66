/**
 * Debugging a container that has no shell, as a user does it, against the lab: the real
 * core in browser mode, headless Chromium, a pod whose container runs the lab's pause image
 * (no shell, no tools). The shell the user asks for is refused and Debug… offered in its
 * place; the debug container's terminal says in its first line where the target is, and
 * shows its pid 1 and its root at /proc/1/root; closing the tab removes the debug container.
 * A kept one is listed with its badge in Debug containers and removed from there.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busyboxContainerConfig, createLabContainer, LAB_IMAGES } from '../support/lab';
import { AppPage } from './pages/app-page';
import { ResourcesPage } from './pages/resources-page';
import { TerminalPage } from './pages/terminal-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('debug');

describe('Debugging a container with no shell, in the browser', () => {
  let page: Page;
  let app: AppPage;
  let terminals: TerminalPage;
  let targetId = '';

  beforeAll(async () => {
    const pod = await lab.runPod('debug', {});
    targetId = await createLabContainer(
      lab.cri,
      pod.podId,
      busyboxContainerConfig('no-shell', [], { image: LAB_IMAGES.pause, labels: lab.runLabel }),
      pod.config,
    );
    await lab.cri.startContainer(targetId);
    ({ page } = await lab.open());
    app = new AppPage(page);
    terminals = new TerminalPage(page);
  });

  afterAll(() => lab.close());

  const debugContainers = async (): Promise<string[]> =>
    (await lab.cri.listContainers({ labels: { 'io.porthole.debug': 'true' } }))
      .filter((container) => container.labels['io.porthole.debug.target-id'] === targetId)
      .map((container) => container.id);

  async function openTarget(): Promise<Locator> {
    await app.go('Containers');
    const table = new ResourcesPage(page, 'containers');
    await table.filter(lab.runId);
    await table.row(/^no-shell/).waitFor({ timeout: 20_000 });
    await table.open(/^no-shell/);
    return table.detail;
  }

  /** Closes every terminal tab, as the user would with each tab's close button. */
  async function closeTabs(): Promise<void> {
    await terminals.closeAllTabs();
  }

  /** Fills in the Debug dialog with the lab's busybox and starts it. */
  async function debugWith(keep: boolean): Promise<void> {
    const dialog = page.getByRole('dialog', { name: 'Debug no-shell' });
    await dialog.waitFor();
    await dialog.getByRole('textbox', { name: 'Toolbox image' }).fill(LAB_IMAGES.busybox);
    if (keep) await dialog.getByRole('checkbox', { name: /^Keep the debug container/ }).check();
    await screenshot(page, keep ? 'debug-dialog-keep' : 'debug-dialog');
    await dialog.getByRole('button', { name: 'Debug', exact: true }).click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
  }

  it('offers Debug… where the shell probe finds none, and shows the target from busybox', async () => {
    const detail = await openTarget();
    await detail.locator('.detail-actions').getByRole('button', { name: 'Shell' }).click();
    const pane = terminals.activePane;
    const ended = terminals.ended(pane);
    await ended.waitFor();
    await expect.poll(() => ended.textContent()).toContain('This container has no shell');
    await screenshot(page, 'debug-offered-no-shell');
    await ended.getByRole('button', { name: 'Debug…' }).click();
    await debugWith(false);

    const debugPane = terminals.activePane;
    await terminals.waitForPrompt(debugPane);
    const [banner] = (await terminals.lines(debugPane)).filter((line) => line !== '');
    expect(banner).toMatch(
      /^Debugging no-shell from debugger-\w{5} \(.*busybox.*\): no-shell's processes are visible/,
    );
    await terminals.run(debugPane, 'tr "\\0" " " < /proc/1/cmdline; echo "<- pid 1"');
    await terminals.waitForLine(debugPane, '/pause <- pid 1');
    await terminals.run(debugPane, 'head -c 4 /proc/1/root/pause | tail -c 3; echo " <- magic"');
    await terminals.waitForLine(debugPane, 'ELF <- magic');
    await screenshot(page, 'debug-terminal');
    expect(await debugContainers()).toHaveLength(1);

    await closeTabs();
    await expect.poll(debugContainers, { timeout: 20_000 }).toEqual([]);
  });

  it('keeps a kept one, badged in Debug containers, and removes it from there', async () => {
    const detail = await openTarget();
    await detail.locator('.detail-actions').getByRole('button', { name: 'Debug…' }).click();
    await debugWith(true);
    const pane = terminals.activePane;
    await terminals.waitForPrompt(pane);
    await closeTabs();
    expect(await debugContainers()).toHaveLength(1);

    await app.go('Debug containers');
    const grid = page.getByRole('grid', { name: 'Debug containers' });
    const row = grid.locator('[role="row"][data-key]').filter({ hasText: 'no-shell' });
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('kept');
    await row.click();
    await page.keyboard.press('Enter');
    const details = page.getByRole('region', { name: /^Debug container debugger-/ });
    await details.waitFor();
    await screenshot(page, 'debug-containers-kept');
    await details.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(debugContainers, { timeout: 20_000 }).toEqual([]);
    await row.waitFor({ state: 'detached' });
  });
});
