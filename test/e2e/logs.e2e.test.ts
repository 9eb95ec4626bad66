/**
 * Logs as a user sees them, against the real lab in headless Chromium: a container that
 * prints a line every 100 ms is opened from its "Logs" action; new lines arrive on screen
 * while it is followed, a search highlights its matches and steps through them, the
 * stream filter and the download work, and a missing log says so. Each test opens the log
 * it reads. Everything created carries the label `e2e-run=<run id>` and is removed
 * afterwards.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './pages/app-page';
import { LogsPage } from './pages/logs-page';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import type { OpenedApp } from './support/browser-app';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('logs');
const { runId, cri } = lab;
const podName = lab.podName('logs');
const ticker = `ticker-${runId}`;
const quiet = `quiet-${runId}`;

/** The tick numbers on screen, in order. */
const ticksOf = (texts: readonly string[]): number[] =>
  texts.flatMap((text) => {
    const tick = /^tick (\d+)$/.exec(text)?.[1];
    return tick === undefined ? [] : [Number(tick)];
  });

describe('Logs in the browser, against the lab', () => {
  let opened: OpenedApp;
  let page: Page;
  let app: AppPage;
  let logs: LogsPage;
  let quietId = '';

  beforeAll(async () => {
    const pod = await lab.runPod('logs', {
      [ticker]: [
        'sh',
        '-c',
        'i=0; while true; do echo "tick $i"; if [ $((i % 10)) -eq 0 ]; then echo "warning $i" >&2; fi; i=$((i+1)); sleep 0.1; done',
      ],
      [quiet]: ['sh', '-c', 'echo "said once"'],
    });
    quietId = pod.containerIds[quiet] ?? '';
    ({ opened } = await lab.open());
    page = opened.page;
    app = new AppPage(page);
    logs = new LogsPage(page);
  });

  afterEach(() => {
    expect(opened.pageErrors).toEqual([]);
  });

  afterAll(() => lab.close());

  /** The Logs view on a container, picked in its Container list. */
  async function show(name: string): Promise<void> {
    await logs.go();
    const option = logs.container.locator('option', { hasText: name });
    await option.waitFor({ state: 'attached' });
    await logs.container.selectOption((await option.getAttribute('value')) ?? '');
  }

  /** The ticker's log followed, every line shown, with at least `ticks` ticks so far. */
  async function followTicker(ticks = 3): Promise<void> {
    await show(ticker);
    await logs.streams.selectOption('all');
    await logs.searchInput.fill('');
    await expect.poll(() => logs.status.textContent(), { timeout: 20_000 }).toContain('Following');
    await expect
      .poll(async () => Math.max(-1, ...ticksOf(await logs.texts())), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(ticks);
  }

  it("follows a container's log from its Logs action: new lines arrive", async () => {
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.filter(ticker);
    await containers.open(ticker);
    await containers.detailAction(/^Logs$/).click();
    await logs.heading.waitFor();
    await expect.poll(() => logs.status.textContent(), { timeout: 20_000 }).toContain('Following');
    await expect.poll(async () => ticksOf(await logs.texts()).length).toBeGreaterThan(3);
    const first = ticksOf(await logs.texts());
    // A second later the newest line on screen is about ten ticks further on.
    await expect
      .poll(async () => Math.max(...ticksOf(await logs.texts())), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(Math.max(...first) + 8);
    // Consecutive: nothing lost between updates.
    const shown = ticksOf(await logs.texts());
    expect(shown).toEqual(shown.map((_, i) => (shown[0] ?? 0) + i));
    // stderr lines are marked as such.
    await expect
      .poll(() => logs.list.locator('.log-line.stderr .log-text').first().textContent())
      .toMatch(/^warning \d+$/);
  });

  it('searches the followed log: matches highlighted, next and previous', async () => {
    // Matches for "tick 1": tick 1 and tick 10 to 19 at least.
    await followTicker(20);
    await logs.searchInput.fill('TICK 1');
    await expect.poll(() => logs.searchStatus.textContent()).toMatch(/^\d[\d,]* of \d[\d,]*$/);
    await expect.poll(() => logs.marks.count()).toBeGreaterThan(0);
    expect((await logs.marks.first().textContent())?.toLowerCase()).toBe('tick 1');
    await expect.poll(() => logs.currentMatch.count()).toBe(1);
    const current = await logs.currentMatch.locator('.log-text').textContent();
    expect(current).toMatch(/^tick 1\d*$/);
    await screenshot(page, 'logs-view');

    const [position, total] = ((await logs.searchStatus.textContent()) ?? '')
      .split(' of ')
      .map((part) => Number(part.replace(/,/g, '')));
    await logs.button('Previous match').click();
    await expect
      .poll(() => logs.searchStatus.textContent())
      .toMatch(
        new RegExp(`^${(position ?? 1) === 1 ? String(total) : String((position ?? 1) - 1)} of`),
      );
    await logs.searchInput.press('Enter');
    await expect.poll(() => logs.searchStatus.textContent()).toMatch(new RegExp(`^${position} of`));

    // As the log grows, new matches join the count. Every tick matches "tick", while the
    // next "tick 1…" after tick 199 is tick 1000: the ticker is shared by this file's tests,
    // and on a slow machine it is past 200 by now.
    const totalOf = async (): Promise<number> =>
      Number(((await logs.searchStatus.textContent()) ?? '').split(' of ')[1]?.replace(/,/g, ''));
    await logs.searchInput.fill('TICK');
    await expect.poll(totalOf).toBeGreaterThan(total ?? 0);
    const all = await totalOf();
    await expect.poll(totalOf).toBeGreaterThan(all);
    await logs.searchInput.fill('');
    await expect.poll(() => logs.marks.count()).toBe(0);
  });

  it('filters by stream, hides timestamps, and goes back to following', async () => {
    await followTicker();
    await logs.streams.selectOption('stderr');
    await expect.poll(async () => (await logs.texts()).length).toBeGreaterThan(0);
    expect((await logs.texts()).every((text) => /^warning \d+$/.test(text))).toBe(true);
    await expect.poll(() => logs.status.textContent()).toMatch(/lines \(stderr\)/);
    await logs.streams.selectOption('all');
    await page.getByRole('checkbox', { name: 'Timestamps' }).uncheck();
    await expect.poll(() => logs.list.locator('.log-time').count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Timestamps' }).check();
    await expect.poll(() => logs.list.locator('.log-time').count()).toBeGreaterThan(0);
    // Scrolled up, the list stays put; "Follow new lines" brings the newest back. (Once
    // there is more than a screenful to scroll.)
    await expect
      .poll(() => logs.list.evaluate((element) => element.scrollHeight - element.clientHeight), {
        timeout: 30_000,
      })
      .toBeGreaterThan(200);
    await logs.list.evaluate((element) => {
      element.scrollTop = 0;
    });
    await logs.button('Follow new lines').click();
    await expect.poll(async () => Math.max(...ticksOf(await logs.texts()))).toBeGreaterThan(20);
  });

  it('downloads what the view shows, as text lines', async () => {
    await followTicker(20);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      logs.button('Download').click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${podName}_${ticker}.log`);
    const path = await download.path();
    const text = readFileSync(path, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(20);
    // The first tick writes "tick 0" to stdout and "warning 0" to stderr: two pipes, so
    // the runtime may log either first.
    const stamp = /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d) /;
    const firstTwo = lines.slice(0, 2);
    for (const line of firstTwo) expect(line).toMatch(stamp);
    expect(firstTwo.map((line) => line.replace(stamp, '')).sort()).toEqual(['tick 0', 'warning 0']);
  });

  it('says clearly when the log file is missing', async () => {
    const path = (await cri.containerStatus(quietId)).logPath;
    // Exited, so nobody can recreate it: gone for good.
    await expect.poll(async () => (await cri.containerStatus(quietId)).state).toBe('exited');
    unlinkSync(path);
    await show(quiet);
    await expect.poll(() => logs.problem.textContent()).toContain('Could not open the log');
    expect(await logs.problem.textContent()).toContain(path);
    expect(await logs.problem.textContent()).toContain('moved or deleted');
    await screenshot(page, 'logs-missing-file');
  });
});
