/**
 * Keyboard only, against the real lab in headless Chromium: the terminal can be left
 * (F6, "Tab moves focus" on Ctrl+M) and read (screen-reader mode, the accessible view), the
 * palette opens from it, tabs move and close by keys; buttons in table rows answer Enter
 * and Space, headers sort from the keyboard, pod links are in the Tab order, there is a
 * skip link, confirmations open on Cancel, focus never falls to <body>, single-key
 * shortcuts can be turned off. (Toasts waiting while hovered: ui/toasts.test.ts.) Everything created on the lab carries
 * `e2e-run=<run id>` and is removed afterwards.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../electron/core/composition';
import { TEST_NAMESPACE } from '../support/lab';
import { AppPage } from './pages/app-page';
import { ForwardsPage } from './pages/forwards-page';
import { ResourcesPage } from './pages/resources-page';
import { TerminalPage } from './pages/terminal-page';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('keys');
const webPod = lab.podName('keys');

describe('everything from the keyboard, against the lab', () => {
  let core: Core;
  let page: Page;
  let app: AppPage;
  let terminals: TerminalPage;

  const focused = (): Promise<string> => app.focused();

  const inTerminal = (): Promise<boolean> =>
    page.evaluate(
      () => document.activeElement?.classList.contains('xterm-helper-textarea') ?? false,
    );

  async function openShell(): Promise<void> {
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.filter(lab.runId);
    await containers.open(/^shell/);
    await containers.detailAction('Shell').click();
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
    await terminals.waitForPrompt(terminals.activePane);
    await expect.poll(inTerminal).toBe(true);
  }

  beforeAll(async () => {
    await lab.runPod('keys', {
      web: ['httpd', '-f', '-p', '8080', '-h', '/'],
      shell: ['sleep', '3600'],
    });
    ({ core, page } = await lab.open());
    app = new AppPage(page);
    terminals = new TerminalPage(page);
  });

  afterEach(async () => {
    await page.keyboard.press('Escape');
    for (const entry of await core.services.forwards.list())
      await core.services.forwards.remove(entry.id);
    const tabs = await terminals.tabs.count();
    for (let index = 0; index < tabs; index++) {
      await page
        .getByRole('button', { name: 'Close tab', exact: true })
        .click()
        .catch(() => undefined);
    }
  });

  afterAll(() => lab.close());

  it('leaves a terminal with F6, and with Tab once "Tab moves focus" is on (Ctrl+M)', async () => {
    await openShell();
    // Tab goes to the shell by default: focus stays in the terminal.
    await page.keyboard.press('Tab');
    expect(await inTerminal()).toBe(true);
    await page.keyboard.press('F6');
    await expect.poll(focused).toMatch(/^tab:/);
    // Back in, Ctrl+M: the pane's toggle shows it, and Tab leaves.
    await page.keyboard.press('Enter');
    await expect.poll(inTerminal).toBe(true);
    await page.keyboard.press('Control+m');
    const toggle = terminals.activePane.getByRole('button', { name: 'Tab moves focus' });
    await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('Tab');
    await expect.poll(inTerminal).toBe(false);
    expect(await focused()).not.toBe('body');
    await toggle.press('Enter');
    await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('false');
    // Shift+F6 goes to the sidebar, on the current view.
    await terminals.focus(terminals.activePane);
    await page.keyboard.press('Shift+F6');
    await expect.poll(focused).toMatch(/^button:Terminals/);
  });

  it('opens the palette with Ctrl+K from a terminal, and shows its text in an accessible view', async () => {
    await openShell();
    await terminals.run(terminals.activePane, 'echo ACCESSIBLE-$((20+1))');
    await terminals.waitForLine(terminals.activePane, 'ACCESSIBLE-21');
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Command' }).waitFor();
    await page.keyboard.press('Escape');
    await terminals.focus(terminals.activePane);
    await page.keyboard.press('Alt+F2');
    const text = page.getByRole('textbox', { name: 'Terminal text' });
    await text.waitFor();
    await expect.poll(focused).toBe('textarea:Terminal text');
    expect(await text.inputValue()).toContain('ACCESSIBLE-21');
    await page.keyboard.press('Escape');
    await expect.poll(inTerminal).toBe(true);
  });

  it('does not pull the focus into a terminal when its view is shown; reads it in screen-reader mode', async () => {
    await openShell();
    await app.go('Pods');
    await app.navLink('Terminals').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
    await terminals.activePane.locator('.xterm-rows').waitFor();
    expect(await inTerminal()).toBe(false);
    expect(await focused()).toMatch(/^button:Terminals/);

    await page.getByRole('button', { name: 'Terminal settings' }).click();
    await page.getByRole('checkbox', { name: /Screen-reader mode/ }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await terminals.activePane.locator('.xterm-accessibility-tree').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Terminal settings' }).click();
    await page.getByRole('checkbox', { name: /Screen-reader mode/ }).uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
  });

  it('moves between tabs with the arrows, closes one with Delete, keeps the focus when the last goes', async () => {
    await openShell();
    await openShell();
    expect(await terminals.tabs.count()).toBe(2);
    // Only tabs in the tablist: its close buttons are not in it.
    expect(
      await page.getByRole('tablist', { name: 'Terminal tabs' }).getByRole('button').count(),
    ).toBe(0);
    await page.keyboard.press('F6');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => terminals.tabs.nth(0).getAttribute('aria-selected')).toBe('true');
    await expect.poll(focused).toMatch(/^tab:/);
    await page.keyboard.press('Delete');
    await expect.poll(() => terminals.tabs.count()).toBe(1);
    await expect.poll(focused).toMatch(/^tab:/);
    await page.keyboard.press('Delete');
    await expect.poll(() => terminals.tabs.count()).toBe(0);
    await expect.poll(focused).not.toBe('body');
  });

  it('presses buttons in table rows with Enter and Space, and confirms on Cancel first', async () => {
    const forward = await core.services.forwards.create(lab.nodeId, {
      target: { kind: 'pod', namespace: TEST_NAMESPACE, name: webPod },
      ports: [{ localPort: 0, remotePort: 8080 }],
    });
    const forwards = new ForwardsPage(page);
    await forwards.go();
    const row = forwards.row(webPod);
    await row.getByRole('button', { name: /^Stop / }).press('Enter');
    await expect
      .poll(
        async () => (await core.services.forwards.list()).find((e) => e.id === forward.id)?.live,
      )
      .toBeUndefined();
    // The checkbox stays as it was: Space pressed the button.
    await row.getByRole('button', { name: /^Start / }).focus();
    await page.keyboard.press('Space');
    await expect
      .poll(
        async () => (await core.services.forwards.list()).find((e) => e.id === forward.id)?.live,
      )
      .toBeDefined();
    expect(await row.getByRole('checkbox').isChecked()).toBe(false);
    await row.getByRole('button', { name: /^Remove / }).press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expect.poll(focused).toBe('button:Cancel');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect((await core.services.forwards.list()).length).toBe(1);
    expect(await focused()).not.toBe('body');
  });

  it('sorts from the keyboard, reaches pod links, and has a skip link', async () => {
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.filter(lab.runId);
    const headers = containers.grid.getByRole('columnheader');
    const sortable = containers.grid.locator('[role="columnheader"][aria-sort]');
    expect(await sortable.count()).toBeGreaterThan(0);
    expect(await sortable.count()).toBeLessThanOrEqual(await headers.count());
    const header = containers.grid.getByRole('columnheader', { name: 'Name', exact: true });
    await header.getByRole('button').focus();
    const before = await header.getAttribute('aria-sort');
    await page.keyboard.press('Enter');
    await expect.poll(() => header.getAttribute('aria-sort')).not.toBe(before);
    // The pod link of a row is a Tab stop.
    const link = containers.row(/^shell/).getByRole('button', { name: webPod });
    expect(await link.evaluate((element) => (element as HTMLElement).tabIndex)).toBe(0);
    await link.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Pods' }).waitFor();
    // The skip link is the first Tab stop, shows when focused, and takes the focus into the view.
    expect(
      await page.evaluate(
        () => document.querySelector('a[href], button, input, select, [tabindex="0"]')?.textContent,
      ),
    ).toBe('Skip to Pods');
    const skip = page.getByRole('link', { name: 'Skip to Pods' });
    await skip.focus();
    await expect.poll(async () => (await skip.boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('grid:Pods');
  });

  it('puts the focus somewhere sensible after a view switch and after Esc on the details', async () => {
    await app.go('Pods');
    const pods = new ResourcesPage(page, 'pods');
    await pods.open(webPod);
    await pods.detailAction('Forward port…').focus();
    await page.keyboard.press('Escape');
    await pods.detail.waitFor({ state: 'detached' });
    await expect.poll(focused).toBe('grid:Pods');
    // A view shortcut from a button the switch removes.
    await pods.open(webPod);
    await pods.detailAction('Forward port…').focus();
    await page.keyboard.press('Alt+Shift+3');
    await page.getByRole('heading', { level: 1, name: 'Containers' }).waitFor();
    await expect.poll(focused).not.toBe('body');
  });

  it('turns single-key shortcuts off, and names the palette button', async () => {
    await app.go('Pods');
    const palette = await app.openPalette();
    await palette.run('Turn off single-key shortcuts');
    await page.locator('main').click({ position: { x: 5, y: 200 } });
    await page.keyboard.press('/');
    expect(await focused()).not.toMatch(/^input:|searchbox/);
    const again = await app.openPalette();
    await again.run('Turn on single-key shortcuts');
    await page.locator('main').click({ position: { x: 5, y: 200 } });
    await page.keyboard.press('/');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('type')))
      .toBe('search');
    const button = page.getByRole('button', { name: /^Command palette/ });
    expect(await button.textContent()).toMatch(/^Command palette(Ctrl\+K|⌘K)$/);
  });
});
