/**
 * axe-core on every view and dialog, in light and dark, against the real lab: a pod with a
 * web server, a ticking logger and a shell, a terminal open in it, a forward to it. Each
 * test brings up its view or dialog (so it can run alone), runs axe in both themes and
 * fails on any critical or serious violation; the counts of every view go to stdout as a
 * table (for the closing note) and to test/e2e/artifacts/axe-counts.json.
 * Everything created on the lab carries `e2e-run=<run id>` and is removed afterwards.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../electron/core/composition';
import { TEST_NAMESPACE } from '../support/lab';
import { AppPage, type ViewName } from './pages/app-page';
import { RunSpecDialog } from './pages/dialogs';
import { LogsPage } from './pages/logs-page';
import { ResourcesPage } from './pages/resources-page';
import { StatsPage } from './pages/stats-page';
import { TerminalPage } from './pages/terminal-page';
import { artifactsDir } from './support/artifacts';
import { runAxe, type AxeCount } from './support/axe';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('a11y');
const webPod = lab.podName('a11y');
const themes = ['light', 'dark'] as const;
const counts = new Map<string, Record<(typeof themes)[number], AxeCount>>();

describe('axe on every view and dialog, light and dark, against the lab', () => {
  let core: Core;
  let page: Page;
  let app: AppPage;

  beforeAll(async () => {
    await lab.runPod('a11y', {
      web: ['httpd', '-f', '-p', '8080', '-h', '/'],
      ticker: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done'],
      shell: ['sleep', '3600'],
    });
    ({ core, page } = await lab.open({ window: { width: 1440, height: 900 } }));
    app = new AppPage(page);
    await core.services.forwards.create(lab.nodeId, {
      target: { kind: 'pod', namespace: TEST_NAMESPACE, name: webPod },
      ports: [{ localPort: 0, remotePort: 8080 }],
    });
    // A shell in the pod: the Terminals view with a live pane, the Sessions view with it.
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.filter(lab.runId);
    await containers.open(/^shell/);
    await containers.detailAction('Shell').click();
    const terminals = new TerminalPage(page);
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
    await terminals.waitForPrompt(terminals.pane(0));
  });

  afterAll(async () => {
    const cell = (count: AxeCount): string =>
      `${count.critical}/${count.serious}/${count.moderate}/${count.minor}`;
    const rows = [...counts].map(
      ([name, byTheme]) =>
        `  ${name.padEnd(24)} light ${cell(byTheme.light).padEnd(12)} dark ${cell(byTheme.dark)}`,
    );
    if (rows.length > 0) {
      process.stdout.write(
        `\naxe violations (nodes) per view, critical/serious/moderate/minor:\n${rows.join('\n')}\n`,
      );
      mkdirSync(artifactsDir, { recursive: true });
      writeFileSync(
        join(artifactsDir, 'axe-counts.json'),
        `${JSON.stringify(Object.fromEntries(counts), null, 2)}\n`,
      );
    }
    await lab.close();
  });

  /** Runs axe in both themes on what is on screen, records the counts, fails on critical/serious. */
  async function audit(name: string): Promise<void> {
    const byTheme = {} as Record<(typeof themes)[number], AxeCount>;
    for (const theme of themes) {
      await page.emulateMedia({ colorScheme: theme });
      // A dialog fades in over 0.1 s: axe read a danger button half-faded (4.39:1, where
      // the token gives 5.5) when it ran before the fade ended. Looping ones never end.
      await page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((animation) => animation.effect?.getTiming().iterations !== Infinity)
            .map((animation) => animation.finished.catch(() => undefined)),
        ),
      );
      byTheme[theme] = await runAxe(page);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    counts.set(name, byTheme);
    const failing = themes.flatMap((theme) =>
      byTheme[theme].failing.map((line) => `${theme}: ${line}`),
    );
    expect.soft(failing, `${name}: critical or serious violations`).toEqual([]);
  }

  async function view(name: ViewName, ready: () => Promise<void>): Promise<void> {
    await app.go(name);
    await ready();
  }

  async function withDialog(open: () => Promise<void>, name: string): Promise<void> {
    await open();
    try {
      await audit(name);
    } finally {
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
  }

  const pods = (): ResourcesPage => new ResourcesPage(page, 'pods');
  const containers = (): ResourcesPage => new ResourcesPage(page, 'containers');

  it('Nodes', async () => {
    await view('Nodes', () => page.getByRole('article').first().waitFor());
    await audit('Nodes');
  });

  it('Pods, and the pod details', async () => {
    await view('Pods', () => pods().row(webPod).waitFor());
    await audit('Pods');
    await pods().open(webPod);
    await audit('Pod details');
  });

  it('Containers, and the container details', async () => {
    await view('Containers', () => containers().row(/^web/).first().waitFor());
    await audit('Containers');
    await containers().open(/^web/);
    await audit('Container details');
  });

  it('a table with more rows and columns than it has room for', async () => {
    // More containers than a short window has rows for, at twice the text size in a narrow
    // one, so the columns that always stay need more than its width: the state a real
    // node's list is in, which a roomy window and a small lab hide.
    await lab.runPod(
      'a11y-many',
      Object.fromEntries(
        ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((name) => [name, ['sleep', '3600']]),
      ),
    );
    await view('Containers', () => containers().filter(lab.runId));
    await page.evaluate(() => {
      document.documentElement.style.fontSize = '200%';
    });
    await page.setViewportSize({ width: 360, height: 300 });
    try {
      await expect
        .poll(() =>
          // Whichever box inside the grid scrolls: the rule is about that box.
          containers().grid.evaluate((grid) => {
            const scrolls = (axis: 'overflowX' | 'overflowY'): Element[] =>
              [grid, ...grid.querySelectorAll('*')].filter((element) =>
                ['auto', 'scroll'].includes(getComputedStyle(element)[axis]),
              );
            return {
              down: scrolls('overflowY').some((box) => box.scrollHeight > box.clientHeight),
              sideways: scrolls('overflowX').some((box) => box.scrollWidth > box.clientWidth),
            };
          }),
        )
        .toEqual({ down: true, sideways: true });
      await audit('Containers, overflowing');
      // The grid that has the focus is what scrolls: the arrow keys reach every column, and
      // a row the keys select shows whole, below the header that stays on top.
      const grid = containers().grid;
      await grid.focus();
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => grid.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
      for (const key of ['End', 'Home', 'End']) {
        await page.keyboard.press(key);
        await expect
          .poll(() =>
            grid.evaluate((element) => {
              const header = element.querySelector('.table-header')?.getBoundingClientRect();
              const row = element.querySelector('[aria-selected="true"]')?.getBoundingClientRect();
              const box = element.getBoundingClientRect();
              if (header === undefined || row === undefined) return 'no selected row';
              if (Math.abs(header.left - row.left) > 1) return 'header and rows apart';
              return row.top >= header.bottom - 1 && row.bottom <= box.bottom + 1
                ? 'shown'
                : `hidden: row ${row.top}–${row.bottom}, header ends ${header.bottom}, grid ends ${box.bottom}`;
            }),
          )
          .toBe('shown');
      }
    } finally {
      await page.evaluate(() => {
        document.documentElement.style.fontSize = '';
      });
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.waitForFunction(() => window.innerWidth === 1440);
      await containers().filter('');
    }
  });

  it('Images, and the image details', async () => {
    const images = new ResourcesPage(page, 'images');
    await view('Images', () => images.rows.first().waitFor());
    await audit('Images');
    await images.open(/busybox/);
    await audit('Image details');
  });

  it('Terminals', async () => {
    const terminals = new TerminalPage(page);
    await view('Terminals', () => terminals.pane(0).locator('.xterm-rows').waitFor());
    await audit('Terminals');
  });

  it('Port forwards', async () => {
    await view('Port forwards', () =>
      page.getByRole('grid', { name: 'Port forwards' }).getByText(webPod).first().waitFor(),
    );
    await audit('Port forwards');
  });

  it('Sessions', async () => {
    await view('Sessions', () =>
      page
        .getByRole('grid', { name: 'Sessions' })
        .locator('[role="row"][data-key]')
        .first()
        .waitFor(),
    );
    await audit('Sessions');
  });

  it('Logs', async () => {
    await app.go('Containers');
    await containers().filter(lab.runId);
    await containers().open(/^ticker/);
    await containers().openLogs();
    await page
      .getByRole('list', { name: 'Log lines' })
      .getByText(/tick \d+/)
      .first()
      .waitFor();
    await audit('Logs');
  });

  it('Logs searched: matches on stderr lines, the current one on its row, and fields', async () => {
    // What the plain Logs audit doesn't show: coloured text (stderr, a level) under a
    // search mark and on the current match's row, the states contrast is easiest to lose in.
    await lab.runPod('a11y-levels', {
      levels: [
        'sh',
        '-c',
        [
          `echo '{"level":"error","msg":"disk full"}' >&2`,
          `echo '{"level":"warn","msg":"disk low"}'`,
          `echo 'plain disk line' >&2`,
          'exec sleep 3600',
        ].join('; '),
      ],
    });
    await app.go('Containers');
    await containers().filter(lab.runId);
    await containers().open(/^levels/);
    await containers().openLogs();
    const logs = new LogsPage(page);
    await logs.list.getByText('plain disk line').waitFor();
    await logs.searchInput.fill('disk');
    await expect.poll(() => logs.marks.count()).toBe(3);
    await expect.poll(() => logs.currentMatch.count()).toBe(1);
    await audit('Logs, searched');
    const fields = page.getByRole('checkbox', { name: 'Fields' });
    await fields.check();
    try {
      await logs.list.locator('.log-level.error').waitFor();
      await logs.list.locator('.log-level.warn').waitFor();
      await audit('Logs, searched, as fields');
    } finally {
      await fields.uncheck();
      await logs.searchInput.fill('');
    }
  });

  it('Logs (all containers)', async () => {
    await app.go('Pods');
    const pods = new ResourcesPage(page, 'pods');
    await pods.filter(webPod);
    await pods.open(webPod);
    await pods.detailAction(/^Logs \(all containers\)$/).click();
    await page.getByRole('heading', { level: 1, name: 'Logs' }).waitFor();
    await page.getByRole('list', { name: 'Log lines' }).locator('.log-source').first().waitFor();
    await audit('Logs (all containers)');
  });

  it('Files', async () => {
    await app.go('Containers');
    await containers().filter(lab.runId);
    await containers().open(/^shell/);
    await containers().openFiles();
    await audit('Files');
  });

  it('Timeline', async () => {
    // A container that comes and goes once Porthole watches: rows on the timeline.
    await core.timeline.watching(lab.nodeId);
    await lab.runPod('a11y-timeline', { once: ['sh', '-c', 'exit 2'] });
    await view('Timeline', () =>
      page
        .getByRole('table', { name: 'Timeline events, newest first' })
        .locator('tr[data-kind="exited"]')
        .first()
        .waitFor({ timeout: 20_000 }),
    );
    await audit('Timeline');
  });

  it('Stats', async () => {
    const stats = new StatsPage(page);
    await view('Stats', async () => {
      await stats.show('Containers');
      await stats.row(/^web/).waitFor({ timeout: 20_000 });
    });
    await audit('Stats');
  });

  it('Debug containers', async () => {
    await view('Debug containers', () =>
      page.getByRole('heading', { level: 1, name: 'Debug containers' }).waitFor(),
    );
    await audit('Debug containers');
  });

  it('Run on many', async () => {
    await view('Run on many', () =>
      page.getByRole('form', { name: 'Run a command on many containers' }).waitFor(),
    );
    await audit('Run on many');
  });

  it('Diagnostics', async () => {
    await app.sidebar.getByRole('button', { name: /^Diagnostics/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Diagnostics' }).waitFor();
    await audit('Diagnostics');
  });

  it('the node selector, open', async () => {
    await app.go('Nodes');
    const banner = page.getByRole('banner');
    const selector = banner.getByRole('combobox', { name: 'Node', exact: true });
    await selector.focus();
    await page.keyboard.press('ArrowDown');
    await banner.getByRole('listbox', { name: 'Nodes' }).getByRole('option').first().waitFor();
    try {
      await audit('Node selector');
    } finally {
      await page.keyboard.press('Escape');
      await expect.poll(() => selector.getAttribute('aria-expanded')).toBe('false');
    }
  });

  it('the command palette', async () => {
    await app.go('Nodes');
    await withDialog(async () => {
      const palette = await app.openPalette();
      await palette.options.first().waitFor();
    }, 'Palette');
  });

  it('the keyboard shortcuts', async () => {
    await app.go('Nodes');
    await withDialog(async () => {
      await page.getByRole('heading', { level: 1, name: 'Nodes' }).click();
      await page.keyboard.press('?');
      await app.dialog.waitFor();
    }, 'Keyboard shortcuts');
  });

  it('Add node', async () => {
    await app.go('Nodes');
    await withDialog(async () => {
      await page.getByRole('button', { name: 'Add node' }).first().click();
      await page.getByRole('dialog', { name: 'Add a node' }).waitFor();
    }, 'Add node');
  });

  it('Run pod', async () => {
    await app.go('Pods');
    const dialog = new RunSpecDialog(page);
    await dialog.open();
    try {
      await audit('Run pod');
    } finally {
      await page.keyboard.press('Escape');
      // An edited or CodeMirror-focused spec may take a second Escape.
      if ((await dialog.dialog.count()) > 0) await page.keyboard.press('Escape');
      await dialog.dialog.waitFor({ state: 'detached' });
    }
  });

  it('Forward port', async () => {
    await app.go('Pods');
    await pods().open(webPod);
    await withDialog(async () => {
      await pods().detailAction('Forward port…').click();
      await page.getByRole('dialog', { name: /Forward a port of/ }).waitFor();
    }, 'Forward port');
  });

  it('the terminal settings', async () => {
    await app.go('Terminals');
    await withDialog(async () => {
      await page.getByRole('button', { name: 'Terminal settings' }).click();
      await app.dialog.waitFor();
    }, 'Terminal settings');
  });

  it('a confirmation', async () => {
    await app.go('Pods');
    await pods().open(webPod);
    await withDialog(async () => {
      await pods().detailAction('Stop').click();
      await page.getByRole('dialog', { name: /^Stop pod/ }).waitFor();
    }, 'Confirmation');
  });
});
