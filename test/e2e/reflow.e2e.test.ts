/**
 * Reflow and text size (WCAG 1.4.4, 1.4.10), against the real lab in headless Chromium: at
 * 200% zoom on a laptop (a 720×450 window) the sidebar is a menu behind the top bar's Menu
 * button that the keyboard opens and closes, the pods table keeps its width with a pod's
 * details open, and the palette fits in the window; at 320 px wide no view is wider than
 * the window; a larger root font size makes the text larger. Each test sets its own window
 * size. Screenshots of every view at both sizes go to test/e2e/artifacts/reflow-*.png.
 * Everything created on the lab carries `e2e-run=<run id>` and is removed afterwards.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppPage, type ViewName } from './pages/app-page';
import { ResourcesPage } from './pages/resources-page';
import { TerminalPage } from './pages/terminal-page';
import { screenshot } from './support/artifacts';
import { runAxe } from './support/axe';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('reflow');
const webPod = lab.podName('reflow');

/** The width at and under which the sidebar is a drawer (narrowShell in Sidebar.tsx). */
const narrowShell = 900;

/** The views the sidebar lists that stand alone (Logs and Files need a container: below). */
const mainViews: readonly ViewName[] = [
  'Nodes',
  'Pods',
  'Containers',
  'Images',
  'Terminals',
  'Port forwards',
  'Sessions',
  'Debug containers',
  'Run on many',
  'Stats',
  'Timeline',
];

describe('reflow at 200% zoom and 320 px, and text that grows, against the lab', () => {
  let page: Page;
  let app: AppPage;

  beforeAll(async () => {
    await lab.runPod('reflow', {
      web: ['httpd', '-f', '-p', '8080', '-h', '/'],
      shell: ['sleep', '3600'],
      talk: ['sh', '-c', 'for i in 1 2 3; do echo "line $i"; done; exec sleep 3600'],
    });
    ({ page } = await lab.open({ window: { width: 1440, height: 900 } }));
    app = new AppPage(page);
  });

  afterAll(async () => {
    await lab.close();
  });

  // A test that fails part-way can leave the palette, a dialog or the drawer open, and the
  // next test's keys would go to them: close what is open so one failure stays one.
  afterEach(async () => {
    const dialogs = page.getByRole('dialog');
    for (let left = await dialogs.count(); left > 0; left = await dialogs.count()) {
      await page.keyboard.press('Escape');
      await expect.poll(() => dialogs.count()).toBeLessThan(left);
    }
    const menu = app.menuButton;
    if ((await menu.count()) > 0 && (await menu.getAttribute('aria-expanded')) === 'true') {
      await menu.click();
      await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    }
  });

  const pods = (): ResourcesPage => new ResourcesPage(page, 'pods');
  const containers = (): ResourcesPage => new ResourcesPage(page, 'containers');

  /** The window's size, once the page has laid out at it (the Menu button there or not). */
  async function resize(width: number, height: number): Promise<void> {
    await page.setViewportSize({ width, height });
    await page.waitForFunction((w) => window.innerWidth === w, width);
    await app.menuButton.waitFor({ state: width <= narrowShell ? 'visible' : 'detached' });
  }

  const focused = (): Promise<string> => app.focused();

  /**
   * What is wider than it may be: the document (a sideways scroll of the window), and the
   * shell's parts that hide their overflow (the top bar, the main area, each toolbar),
   * whose overflow is clipped content nobody can reach. Each as `name: scroll > client`.
   */
  const overflows = (): Promise<string[]> =>
    page.evaluate(() => {
      const found: string[] = [];
      const root = document.documentElement;
      if (root.scrollWidth > window.innerWidth) {
        found.push(`document: ${root.scrollWidth} > ${window.innerWidth}`);
      }
      const parts = [
        ...document.querySelectorAll<HTMLElement>('header.topbar, main, main .toolbar'),
      ];
      for (const part of parts) {
        if (part.getClientRects().length === 0) continue;
        // A pixel of rounding.
        if (part.scrollWidth > part.clientWidth + 1) {
          const name = part.getAttribute('aria-label') ?? part.className;
          found.push(
            `${part.tagName.toLowerCase()} ${name}: ${part.scrollWidth} > ${part.clientWidth}`,
          );
        }
      }
      return found;
    });

  /** The box of what the locator finds, in CSS pixels. */
  async function box(
    locator: Locator,
  ): Promise<{ x: number; y: number; width: number; height: number }> {
    const found = await locator.boundingBox();
    if (found === null) throw new Error('not laid out');
    return found;
  }

  it('at 720×450 the sidebar is a menu: opened, walked and closed from the keyboard', async () => {
    await resize(720, 450);
    await app.go('Nodes');
    const menu = app.menuButton;
    await expect.poll(() => app.sidebar.isVisible()).toBe(false);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.getAttribute('aria-controls')).toBe('sidebar');

    // Enter opens it onto the current view; Escape closes it, the focus back on Menu.
    await menu.focus();
    await page.keyboard.press('Enter');
    await app.sidebar.waitFor({ state: 'visible' });
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(focused).toMatch(/^button:Nodes/);
    await screenshot(page, 'reflow-720-menu-open');
    await page.keyboard.press('Escape');
    await app.sidebar.waitFor({ state: 'hidden' });
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(focused).toBe('button:Menu');

    // Space opens it; Tab walks to Pods, Enter shows it: the menu closes, the view has
    // the focus.
    await page.keyboard.press('Space');
    await expect.poll(focused).toMatch(/^button:Nodes/);
    for (let step = 0; step < 4 && !(await focused()).startsWith('button:Pods'); step += 1) {
      await page.keyboard.press('Tab');
    }
    expect(await focused()).toMatch(/^button:Pods/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Pods' }).waitFor();
    await app.sidebar.waitFor({ state: 'hidden' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(focused).not.toBe('body');
    expect(
      await page.evaluate(() => document.querySelector('main')?.contains(document.activeElement)),
    ).toBe(true);

    // Tab past its last item closes it behind the focus, which goes on to the top bar.
    await menu.focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toMatch(/^button:Pods/);
    const inMenu = (): Promise<boolean> =>
      page.evaluate(
        () => document.getElementById('sidebar')?.contains(document.activeElement) ?? false,
      );
    for (let step = 0; step < 20 && (await inMenu()); step += 1) {
      await page.keyboard.press('Tab');
    }
    await app.sidebar.waitFor({ state: 'hidden' });
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(focused).toBe('button:Menu');
  });

  it('at 720×450 Shift+F6 leaves a terminal for the Menu button, the way to the sidebar', async () => {
    await resize(720, 450);
    await app.go('Containers');
    await containers().filter(lab.runId);
    await containers().open(/^shell/);
    await containers().detailAction('Shell').click();
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
    const terminals = new TerminalPage(page);
    await terminals.waitForPrompt(terminals.activePane);
    await terminals.focus(terminals.activePane);
    await page.keyboard.press('Shift+F6');
    await expect.poll(focused).toBe('button:Menu');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toMatch(/^button:Terminals/);
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('button:Menu');
  });

  it('at 720×450 the pods table keeps its width with a pod open, its details under it', async () => {
    await resize(720, 450);
    await app.go('Pods');
    await pods().filter(lab.runId);
    await pods().row(webPod).waitFor();
    expect((await box(pods().grid)).width).toBeGreaterThanOrEqual(680);
    await pods().open(webPod);
    const table = await box(pods().grid);
    const detail = await box(pods().detail);
    await screenshot(page, 'reflow-720-pod-details');
    // The whole width, and room for a few rows (the header and three of 28 px).
    expect(table.width).toBeGreaterThanOrEqual(680);
    expect(table.height).toBeGreaterThanOrEqual(110);
    // The details under the table, inside the window.
    expect(detail.y).toBeGreaterThanOrEqual(table.y + table.height - 1);
    expect(detail.y + detail.height).toBeLessThanOrEqual(450 + 1);
    expect(await overflows()).toEqual([]);
    await page.keyboard.press('Escape');
    await pods().detail.waitFor({ state: 'detached' });
  });

  it('beside the table, the details pane cannot be made so wide the table has no room', async () => {
    await resize(1100, 800);
    await app.go('Pods');
    await pods().filter(lab.runId);
    await pods().open(webPod);
    const splitter = page.getByRole('separator', { name: 'Resize the details pane' });
    await splitter.focus();
    // Home: as wide as it may be; the table keeps its minimum (--table-keep, 360 px).
    await page.keyboard.press('Home');
    await expect
      .poll(async () => Number(await splitter.getAttribute('aria-valuenow')))
      .toBeLessThan(1100);
    const table = await box(pods().grid);
    const detail = await box(pods().detail);
    expect(table.width).toBeGreaterThanOrEqual(355);
    expect(detail.x).toBeGreaterThanOrEqual(table.x + table.width - 3);
    expect(detail.x + detail.width).toBeLessThanOrEqual(1100 + 1);
    // Back to the narrowest for the tests after this one.
    await page.keyboard.press('End');
    await page.keyboard.press('Escape');
    await pods().detail.waitFor({ state: 'detached' });
  });

  it('the palette fits in the window at 720×450 and at 320×640, its list scrolling', async () => {
    for (const [width, height] of [
      [720, 450],
      [320, 640],
    ] as const) {
      await resize(width, height);
      await app.go('Nodes');
      const palette = await app.openPalette();
      await palette.options.first().waitFor();
      const dialog = await box(page.getByRole('dialog', { name: 'Command palette' }));
      await screenshot(page, `reflow-${width}-palette`);
      expect(dialog.y).toBeGreaterThanOrEqual(0);
      expect(dialog.y + dialog.height).toBeLessThanOrEqual(height);
      expect(dialog.x).toBeGreaterThanOrEqual(0);
      expect(dialog.x + dialog.width).toBeLessThanOrEqual(width);
      // Every command is still there to reach: the list scrolls within the dialog.
      const list = await page
        .getByRole('listbox', { name: 'Commands' })
        .evaluate((element) => ({ scroll: element.scrollHeight, client: element.clientHeight }));
      expect(list.client).toBeGreaterThan(0);
      expect(await overflows()).toEqual([]);
      await page.keyboard.press('Escape');
      await palette.input.waitFor({ state: 'detached' });
    }
  });

  it('at 320×640 no view is wider than the window, and each is reached from the menu', async () => {
    await resize(320, 640);
    const found: string[] = [];
    for (const name of mainViews) {
      await app.go(name);
      await screenshot(page, `reflow-320-${name.toLowerCase().replace(/\s+/g, '-')}`);
      found.push(...(await overflows()).map((line) => `${name}: ${line}`));
    }
    expect(found).toEqual([]);
  });

  it('at 320×640 a table stays in the window, and a container, its logs and files fit', async () => {
    await resize(320, 640);
    await app.go('Containers');
    await containers().filter(lab.runId);
    await containers().row(/^web/).waitFor();
    // The columns that can go have gone; if those that stay need more than the window,
    // the rows scroll sideways inside the table (accessibility.e2e's overflowing table).
    expect(
      await containers().grid.evaluate(
        (grid) => grid.getBoundingClientRect().right <= window.innerWidth,
      ),
    ).toBe(true);
    await containers().open(/^web/);
    await screenshot(page, 'reflow-320-container-details');
    expect(await overflows()).toEqual([]);

    await containers().openLogs();
    await screenshot(page, 'reflow-320-logs');
    expect(await overflows()).toEqual([]);

    await app.go('Containers');
    await containers().filter(lab.runId);
    await containers().open(/^shell/);
    await containers().openFiles();
    await screenshot(page, 'reflow-320-files');
    expect(await overflows()).toEqual([]);
  });

  it('at 320×640 the Nodes and Pods views pass axe', async () => {
    await resize(320, 640);
    await app.go('Nodes');
    await page.getByRole('article').first().waitFor();
    expect((await runAxe(page)).failing).toEqual([]);
    await app.go('Pods');
    await pods().row(webPod).waitFor();
    expect((await runAxe(page)).failing).toEqual([]);
    // With the menu open over the view.
    await app.menuButton.click();
    await app.sidebar.waitFor({ state: 'visible' });
    expect((await runAxe(page)).failing).toEqual([]);
    await page.keyboard.press('Escape');
    await app.sidebar.waitFor({ state: 'hidden' });
  });

  it('a larger root font size makes the text larger', async () => {
    await resize(1440, 900);
    await app.go('Pods');
    await pods().row(webPod).waitFor();
    const sizes = (): Promise<number[]> =>
      page.evaluate(() =>
        [
          'body',
          'h1',
          '[role="columnheader"]',
          '[role="gridcell"]',
          '.toolbar-status',
          '.nav-item',
        ].map((selector) => {
          const element = document.querySelector(selector);
          return element === null
            ? Number.NaN
            : Number.parseFloat(getComputedStyle(element).fontSize);
        }),
      );
    const before = await sizes();
    expect(before.every(Number.isFinite)).toBe(true);
    // The default root (16 px) keeps the look the app was drawn at: 13 px text.
    expect(before[0]).toBe(13);
    try {
      await page.evaluate(() => {
        document.documentElement.style.fontSize = '20px';
      });
      await expect.poll(async () => (await sizes())[0]).toBeCloseTo(13 * 1.25, 1);
      // The table measures the text size as it lays out: shown again, its columns widen.
      await app.go('Nodes');
      await app.go('Pods');
      await pods().row(webPod).waitFor();
      const after = await sizes();
      after.forEach((size, index) => expect(size).toBeCloseTo((before[index] ?? 0) * 1.25, 1));
      await screenshot(page, 'reflow-root-20px');
      expect(await overflows()).toEqual([]);
      // Every column's header still fits its column.
      const cramped = await pods()
        .grid.locator('[role="columnheader"]')
        .evaluateAll((headers) =>
          headers
            .filter((header) => header.scrollWidth > header.clientWidth + 1)
            .map((header) => header.textContent),
        );
      expect(cramped).toEqual([]);
      // Rows and the header grow with the text (WCAG 1.4.4): a cell's line isn't clipped,
      // and the rows are placed as tall as they are drawn, one under the other.
      const rows = await pods()
        .grid.locator('[role="row"][aria-selected]')
        .evaluateAll((elements) =>
          elements.slice(0, 2).map((row) => {
            const box = row.getBoundingClientRect();
            const cell = row.querySelector('[role="gridcell"]');
            const line = cell === null ? 0 : Number.parseFloat(getComputedStyle(cell).lineHeight);
            return { top: box.top, height: box.height, line };
          }),
        );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.height).toBe(Math.round(28 * 1.25));
        expect(row.line).toBeLessThan(row.height);
      }
      if (rows.length === 2) expect(rows[1]!.top - rows[0]!.top).toBe(rows[0]!.height);
      const headerHeight = await pods()
        .grid.locator('[role="row"][aria-rowindex="1"]')
        .evaluate((header) => header.getBoundingClientRect().height);
      expect(headerHeight).toBeCloseTo(30 * 1.25, 0);

      // Log lines too: each as tall as the text needs, placed one under the other.
      await app.go('Containers');
      await containers().filter(lab.runId);
      await containers().open(/^talk/);
      await containers().openLogs();
      const lines = page.locator('.log-line:not(.loading)');
      await expect.poll(() => lines.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      const boxes = await lines.evaluateAll((elements) =>
        elements.slice(0, 2).map((line) => {
          const box = line.getBoundingClientRect();
          const size = Number.parseFloat(getComputedStyle(line).fontSize);
          return { top: box.top, height: box.height, size };
        }),
      );
      expect(boxes[0]!.height).toBe(Math.round(20 * 1.25));
      expect(boxes[0]!.size).toBeCloseTo(12 * 1.25, 1);
      expect(boxes[1]!.top - boxes[0]!.top).toBe(boxes[0]!.height);
    } finally {
      await page.evaluate(() => {
        document.documentElement.style.fontSize = '';
      });
    }
  });
});
