/**
 * Stats as a user sees them, against the real lab in headless Chromium: the containers
 * table shows each running container's CPU and memory as a sparkline, and a busy
 * container's "Stats" action opens live uPlot charts whose legend reads its CPU well above
 * zero while an idle neighbour stays near zero. Each test opens the view it looks at.
 * Everything created carries the label `e2e-run=<run id>` and is removed afterwards.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './pages/app-page';
import { ResourcesPage } from './pages/resources-page';
import { StatsPage, percent } from './pages/stats-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';

/**
 * A spinning container gets its share of the machine, not a core: beside other work (load
 * 20 on 2 cores) it read 9–18% of a core. An idle one reads under 1% however busy the
 * machine is, so these two tell them apart on any machine.
 */
const BUSY_CPU_MIN = 5;
const IDLE_CPU_MAX = 2;

const lab = new LabSuite('stats');
const { runId } = lab;
const busy = `busy-${runId}`;
const idle = `idle-${runId}`;

describe('Stats in the browser, against the lab', () => {
  let page: Page;
  let pageErrors: readonly unknown[];
  let app: AppPage;
  let stats: StatsPage;

  beforeAll(async () => {
    await lab.runPod('stats', {
      [busy]: ['sh', '-c', 'while :; do :; done'],
      [idle]: ['sleep', '3600'],
    });
    const { opened } = await lab.open();
    ({ page, pageErrors } = opened);
    app = new AppPage(page);
    stats = new StatsPage(page);
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  afterAll(() => lab.close());

  /** The Containers table, this run's two containers in it. */
  async function runContainers(): Promise<ResourcesPage> {
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.clearFilters();
    await containers.filter(runId);
    await expect.poll(() => containers.rows.count()).toBe(2);
    return containers;
  }

  /** The Stats view on containers, the busiest charted. */
  async function busiestContainers(): Promise<void> {
    await stats.go();
    await stats.show('Containers');
    // Disabled when the busiest are what is charted already.
    const busiest = page.getByRole('button', { name: /^Busiest/ });
    if (await busiest.isEnabled()) await busiest.click();
    await expect.poll(() => stats.charted(new RegExp(`^${busy}`)).isChecked()).toBe(true);
  }

  it('shows CPU and memory sparklines in the containers table', async () => {
    const containers = await runContainers();
    await expect
      .poll(() => containers.grid.getByRole('columnheader').allTextContents())
      .toEqual(expect.arrayContaining(['CPU', 'Memory']));
    const row = containers.row(busy);
    // A line is drawn once there are two samples with a rate between them.
    const line = row.locator('svg.sparkline path').first();
    await expect
      .poll(() => line.getAttribute('d'), { timeout: 20_000 })
      .toMatch(/^M[\d.]+ [\d.]+L/);
    await expect
      .poll(async () => percent(await row.locator('.stats-cell-value').first().textContent()), {
        timeout: 20_000,
      })
      .toBeGreaterThan(BUSY_CPU_MIN);
    expect(await row.locator('.stats-cell-value').nth(1).textContent()).toMatch(/\d (B|KiB|MiB)$/);
    await expect
      .poll(async () =>
        percent(await containers.row(idle).locator('.stats-cell-value').first().textContent()),
      )
      .toBeLessThan(5);
    await screenshot(page, 'stats-sparklines');
  });

  it("opens a busy container's stats from its Stats action, with its CPU well above zero", async () => {
    const containers = await runContainers();
    await containers.open(busy);
    await containers.detailAction('Stats').click();
    await stats.heading.waitFor();
    // Opened on that container: charted alone, its row picked out.
    await expect.poll(() => stats.charted(new RegExp(`^${busy}`)).isChecked()).toBe(true);
    await expect.poll(() => stats.charted(new RegExp(`^${idle}`)).isChecked()).toBe(false);
    await expect.poll(() => stats.points('CPU (% of one core)')).toBeGreaterThanOrEqual(2);
    await expect
      .poll(() => stats.cpu(new RegExp(`^${busy}`)), { timeout: 20_000 })
      .toBeGreaterThan(BUSY_CPU_MIN);
    expect(await stats.cpu(new RegExp(`^${idle}`))).toBeLessThan(IDLE_CPU_MAX);
    expect(await stats.memory(new RegExp(`^${busy}`))).toMatch(/\d (B|KiB|MiB)$/);
    await expect(stats.chart('Memory (working set)').locator('canvas').count()).resolves.toBe(1);
  });

  it('charts the busiest containers, and shows the values under the cursor', async () => {
    await busiestContainers();
    await stats.charted(new RegExp(`^${idle}`)).check();
    await expect.poll(() => stats.legendTime.textContent()).toBe('Latest values');
    // Enough samples for a picture of a trend.
    await expect
      .poll(() => stats.points('CPU (% of one core)'), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(6);
    // Near the right edge: the latest samples (older ones may predate the first rate).
    await stats.hoverChart('CPU (% of one core)');
    await expect.poll(() => stats.legendTime.textContent()).toMatch(/^At \d/);
    // The hovered sample's value, from the same data the chart draws: the busy container's
    // share varies with the shared machine's load, but it is never near the idle one's 0 %.
    expect(await stats.cpu(new RegExp(`^${busy}`))).toBeGreaterThan(BUSY_CPU_MIN);
    await screenshot(page, 'stats-view');
    await page.mouse.move(5, 5);
    await expect.poll(() => stats.legendTime.textContent()).toBe('Latest values');
  });

  it('draws in the dark theme’s colours', async () => {
    await busiestContainers();
    const swatch = stats.row(new RegExp(`^${busy}`)).locator('.stats-swatch');
    const light = await swatch.evaluate((element) => getComputedStyle(element).backgroundColor);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect
      .poll(() => swatch.evaluate((element) => getComputedStyle(element).backgroundColor))
      .not.toBe(light);
    await screenshot(page, 'stats-view-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('charts pods too', async () => {
    await stats.go();
    await stats.show('Pods');
    await expect
      .poll(() => stats.cpu(new RegExp(`^${lab.podName('stats')}`)), { timeout: 20_000 })
      .toBeGreaterThan(BUSY_CPU_MIN);
  });
});
