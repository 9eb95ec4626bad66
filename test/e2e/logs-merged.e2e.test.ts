/**
 * A pod's logs as one stream, as a user sees them, against the real lab in headless
 * Chromium: a pod of three containers printing numbered lines at their own pace is opened
 * from its "Logs (all containers)" action; the lines interleave in timestamp order, each
 * with its container's name in its own colour; a container is filtered out and back;
 * search finds across containers. Everything created carries `e2e-run=<run id>`.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './pages/app-page';
import { LogsPage } from './pages/logs-page';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import type { OpenedApp } from './support/browser-app';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('logs-merged');
const podName = lab.podName('merged');
const printer = (name: string, pause: string): string[] => [
  'sh',
  '-c',
  `i=0; while true; do echo "${name} $i"; i=$((i+1)); sleep ${pause}; done`,
];

describe('A pod’s logs merged, in the browser, against the lab', () => {
  let opened: OpenedApp;
  let page: Page;
  let logs: LogsPage;

  beforeAll(async () => {
    await lab.runPod('merged', {
      alpha: printer('alpha', '0.1'),
      bravo: printer('bravo', '0.15'),
      charlie: printer('charlie', '0.2'),
      // logfmt, every third line an error.
      delta: [
        'sh',
        '-c',
        'i=0; while true; do if [ $((i % 3)) -eq 0 ]; then l=error; else l=info; fi; ' +
          'echo "level=$l msg=\\"step $i\\" n=$i unit=delta"; i=$((i+1)); sleep 0.1; done',
      ],
    });
    ({ opened } = await lab.open());
    page = opened.page;
    logs = new LogsPage(page);
  });

  afterEach(() => {
    expect(opened.pageErrors).toEqual([]);
  });

  afterAll(() => lab.close());

  /** The pod's merged log, from its "Logs (all containers)" action, with every container in. */
  async function openPodLogs(): Promise<void> {
    await new AppPage(page).go('Pods');
    const pods = new ResourcesPage(page, 'pods');
    await pods.filter(podName);
    await pods.open(podName);
    await pods.detailAction(/^Logs \(all containers\)$/).click();
    await logs.heading.waitFor();
    await expect.poll(() => logs.status.textContent(), { timeout: 20_000 }).toContain('Following');
    await expect
      .poll(async () => new Set((await logs.mergedLines()).map((line) => line.source)).size, {
        timeout: 30_000,
      })
      .toBe(4);
  }

  it('opens from the pod, interleaves by time with a coloured container column, filters a container', async () => {
    await openPodLogs();
    // Enough lines that they interleave on screen.
    await expect.poll(async () => (await logs.mergedLines()).length).toBeGreaterThan(15);
    const lines = await logs.mergedLines();
    for (const line of lines.filter((shown) => shown.source !== 'delta')) {
      expect(line.text.startsWith(`${line.source} `)).toBe(true);
    }
    // In timestamp order (RFC 3339 UTC, same length: the text order is the time order).
    const times = lines.map((line) => Date.parse(line.timeText));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const switches = lines.filter((line, i) => i > 0 && line.source !== lines[i - 1]?.source);
    expect(switches.length).toBeGreaterThan(3);
    // Each container its own colour.
    const colours = await logs.list
      .locator('.log-source')
      .evaluateAll((elements) =>
        Object.fromEntries(
          elements.map((element) => [element.textContent, getComputedStyle(element).color]),
        ),
      );
    expect(new Set(Object.values(colours)).size).toBe(4);
    await expect.poll(() => logs.source('alpha').getAttribute('aria-pressed')).toBe('true');
    await screenshot(page, 'logs-merged');

    // bravo filtered out: only alpha and charlie, still following.
    await logs.source('bravo').click();
    await expect.poll(() => logs.source('bravo').getAttribute('aria-pressed')).toBe('false');
    await expect
      .poll(async () => {
        const shown = await logs.mergedLines();
        return shown.length > 5 && shown.every((line) => line.source !== 'bravo');
      })
      .toBe(true);
    await expect.poll(() => logs.status.textContent()).toMatch(/of [\d,]+ lines/);
    await screenshot(page, 'logs-merged-filtered');

    // Search across what the view shows.
    await logs.searchInput.fill('charlie 1');
    await expect.poll(() => logs.marks.count()).toBeGreaterThan(0);
    expect(await logs.currentMatch.locator('.log-source').textContent()).toBe('charlie');
    await logs.searchInput.fill('');
    await logs.source('bravo').click();
    await expect
      .poll(async () => (await logs.mergedLines()).some((line) => line.source === 'bravo'))
      .toBe(true);
  });

  it('shows logfmt lines as fields, filters on one (level=error), and goes back to raw', async () => {
    await openPodLogs();
    await expect.poll(() => logs.list.locator('.log-level').count()).toBeGreaterThan(0);
    const level = logs.list.locator('.log-level').first();
    expect(await level.textContent()).toMatch(/^(INFO|ERROR)$/);
    await logs.page.getByRole('textbox', { name: 'Filter on a field' }).fill('level=error');
    await expect
      .poll(async () => {
        const shown = await logs.mergedLines();
        return shown.length > 2 && shown.every((line) => line.source === 'delta');
      })
      .toBe(true);
    const levels = await logs.list.locator('.log-level').allTextContents();
    expect(new Set(levels)).toEqual(new Set(['ERROR']));
    expect(await logs.list.locator('.log-msg').first().textContent()).toMatch(/^step \d+$/);
    // Every third step is an error: their numbers are multiples of three.
    const steps = (await logs.list.locator('.log-msg').allTextContents()).map((text) =>
      Number(text.replace('step ', '')),
    );
    expect(steps.every((step) => step % 3 === 0)).toBe(true);
    await screenshot(page, 'logs-merged-fields');
    await logs.page.getByRole('checkbox', { name: 'Fields' }).uncheck();
    await expect
      .poll(async () => (await logs.texts())[0] ?? '')
      .toMatch(/^level=error msg="step \d+" n=\d+ unit=delta$/);
    await logs.page.getByRole('checkbox', { name: 'Fields' }).check();
    await logs.page.getByRole('textbox', { name: 'Filter on a field' }).fill('');
    await expect
      .poll(async () => new Set((await logs.mergedLines()).map((line) => line.source)).size)
      .toBeGreaterThan(1);
  });

  it('merges the containers a label selector picks', async () => {
    await logs.go();
    const selector = logs.page.getByRole('textbox', {
      name: 'Merge the logs of containers with labels',
    });
    await selector.fill(`e2e-run=${lab.runId}`);
    await selector.press('Enter');
    await expect
      .poll(async () => new Set((await logs.mergedLines()).map((line) => line.source)), {
        timeout: 30_000,
      })
      .toEqual(new Set(['alpha', 'bravo', 'charlie', 'delta']));
    expect(await logs.container.locator('option:checked').textContent()).toContain(
      `containers matching e2e-run=${lab.runId} (4)`,
    );
  });
});
