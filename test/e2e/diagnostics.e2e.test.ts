/**
 * Diagnostics as a user reaches it, against the lab in headless Chromium: an action in
 * the app (disconnecting and reconnecting the node) shows up in the recent log, the view
 * opens from the palette and from the sidebar, and "Copy report" puts versions, the node
 * and its capabilities on the clipboard without the node's socket.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './pages/app-page';
import { NodesPage } from './pages/nodes-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('diagnostics');

describe('Diagnostics in the browser, against the lab', () => {
  let page: Page;
  let pageErrors: readonly unknown[];
  let app: AppPage;
  let nodeName: string;
  let eventsKnown: () => boolean;

  beforeAll(async () => {
    const { opened, core } = await lab.open();
    ({ page, pageErrors } = opened);
    app = new AppPage(page);
    const node = () => core.nodes.statuses().find((status) => status.nodeId === lab.nodeId);
    nodeName = node()!.name;
    eventsKnown = () => (node()?.capabilities?.containerEvents ?? 'unknown') !== 'unknown';
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  afterAll(() => lab.close());

  it('shows the log line an action caused, and copies a report for a bug', async () => {
    const nodes = new NodesPage(page);
    await app.go('Nodes');
    await nodes.disconnect(nodeName);
    await nodes.connect(nodeName);
    await nodes.waitConnected(nodeName);

    // From the palette, by name.
    const palette = await app.openPalette();
    await palette.run('Go to Diagnostics');
    await page.getByRole('heading', { level: 1, name: 'Diagnostics' }).waitFor();
    const log = page.getByRole('list', { name: 'Recent log entries' });
    await expect.poll(() => log.textContent()).toContain(`Disconnecting ${nodeName}.`);
    await expect
      .poll(() => log.textContent())
      .toContain(`Connected ${nodeName}: ${lab.runtime.kind} ${lab.runtime.versionFull}`);

    // Connecting doesn't wait for the event stream: the report names what it found.
    await expect.poll(eventsKnown).toBe(true);
    // Keyboard: the toolbar's first button copies the report.
    await page.getByRole('button', { name: 'Copy report' }).focus();
    await page.keyboard.press('Enter');
    await app.toast('Copied the diagnostics report').waitFor();
    const report = await page.evaluate(() => navigator.clipboard.readText());
    expect(report).toMatch(/^Porthole \S+ \(browser mode\)\nCore: Node \d+\.\d+\.\d+/);
    expect(report).toContain(
      `- ${nodeName}: local, connected; ${lab.runtime.kind} ${lab.runtime.versionFull}, CRI v1`,
    );
    expect(report).toMatch(/capabilities: containerEvents (supported|disabled|unsupported)/);
    expect(report).not.toContain(lab.runtime.socketPath);
    await screenshot(page, 'diagnostics-01-log-and-report');

    // And from the sidebar, after leaving it.
    await app.go('Pods');
    await app.sidebar.getByRole('button', { name: /^Diagnostics/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Diagnostics' }).waitFor();
  });
});
