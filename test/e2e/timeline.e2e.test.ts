/**
 * The Timeline as a user sees it, against the lab's containerd 2.x in headless Chromium: a
 * container that crashes on three attempts (each created as the kubelet does once the
 * previous one exited) shows its exits with their reason and the crash-loop marker; the
 * view is driven from the keyboard (filter, zoom, an exit's Logs, which opens that
 * attempt's log), exports JSON lines, and is axe-clean. Everything created carries the
 * label `e2e-run=<run id>` and is removed afterwards.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../electron/core/composition';
import type { TimelineEvent } from '../../shared/model';
import { busyboxContainerConfig, createLabContainer } from '../support/lab';
import { AppPage } from './pages/app-page';
import { LogsPage } from './pages/logs-page';
import { screenshot } from './support/artifacts';
import { runAxe } from './support/axe';
import type { OpenedApp } from './support/browser-app';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('timeline');
const crasher = `crasher-${lab.runId}`;

/** Resolves once the core's timeline holds what `test` looks for (30 s at most). */
function recorded(core: Core, test: (events: readonly TimelineEvent[]) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error('Not recorded within 30 s.'));
    }, 30_000);
    const subscription = core.events.timeline(undefined, {
      next: () => {
        if (!test(core.timeline.list())) return;
        clearTimeout(timer);
        // Disposed after this call returns: the recorder is iterating its sinks.
        queueMicrotask(() => subscription.dispose());
        resolve();
      },
      error: reject,
    });
  });
}

describe('the Timeline in the browser, against the lab', () => {
  let core: Core;
  let opened: OpenedApp;
  let page: Page;
  let app: AppPage;

  beforeAll(async () => {
    ({ core, opened, page } = await lab.open({ window: { width: 1440, height: 900 } }));
    app = new AppPage(page);
    await core.timeline.watching(lab.nodeId);
    const pod = await lab.runPod('timeline', {});
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const id = await createLabContainer(
        lab.cri,
        pod.podId,
        busyboxContainerConfig(crasher, ['sh', '-c', `echo "attempt ${attempt} failing"; exit 3`], {
          attempt,
          labels: lab.runLabel,
        }),
        pod.config,
      );
      await lab.cri.startContainer(id);
      await recorded(core, (events) => events.some((event) => isExit(event, id)));
    }
  }, 120_000);

  afterEach(() => {
    expect(opened.pageErrors).toEqual([]);
  });

  afterAll(() => lab.close());

  const isExit = (event: TimelineEvent, id: string) =>
    event.kind === 'exited' && event.containerId === id;

  it('shows the exits with their reason and marks the crash loop', async () => {
    await app.go('Timeline');
    const loops = page.getByRole('region', { name: 'Crash loops' });
    await loops.getByText(crasher).waitFor();
    await expect.poll(() => loops.textContent()).toMatch(/3 failed exits .* attempt 2 last/);
    const table = page.getByRole('table', { name: 'Timeline events, newest first' });
    const exits = table.locator('tr[data-kind="exited"]', { hasText: crasher });
    await expect.poll(() => exits.count()).toBe(3);
    await expect.poll(() => exits.first().textContent()).toMatch(/exited · code 3 · Error/);
    await expect.poll(() => exits.first().textContent()).toMatch(/crash loop/);
    await screenshot(page, 'timeline-crash-loop');
  });

  it('is driven from the keyboard: filter, zoom, and an exit’s logs at that moment', async () => {
    await app.go('Timeline');
    // Filter by container: focus the field and type.
    await page.getByRole('searchbox', { name: 'Filter by container' }).focus();
    await page.keyboard.type(crasher);
    await page.getByRole('combobox', { name: 'Kind of event' }).focus();
    await page.getByRole('combobox', { name: 'Kind of event' }).selectOption('restarts');
    const table = page.getByRole('table', { name: 'Timeline events, newest first' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    await page.getByRole('combobox', { name: 'Kind of event' }).selectOption('exits');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(3);
    // Zoom with + and - on the strip; the pressed zoom button follows.
    const strip = page.getByRole('img', { name: /events from .* press \+ or - to zoom/ });
    await strip.focus();
    await page.keyboard.press('+');
    await page.getByRole('button', { name: '15 min', pressed: true }).waitFor();
    await page.keyboard.press('-');
    await page.getByRole('button', { name: '1 h', pressed: true }).waitFor();
    // The newest exit's Logs, from the keyboard: that attempt's own log.
    const logsButton = table.locator('tr[data-kind="exited"]').first().getByRole('button');
    expect(await logsButton.getAttribute('aria-label')).toMatch(/^Logs of .* \(exited · code 3/);
    await logsButton.focus();
    await page.keyboard.press('Enter');
    const logs = new LogsPage(page);
    await logs.heading.waitFor();
    await logs.list.getByText('attempt 2 failing').waitFor();
  });

  it('exports what it shows as JSON lines', async () => {
    await app.go('Timeline');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON lines' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^timeline-.*\.jsonl$/);
    const events = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as TimelineEvent);
    const exits = events.filter((e) => e.kind === 'exited' && e.containerName === crasher);
    expect(exits.map((e) => [e.attempt, e.exitCode, e.reason, e.source])).toEqual([
      [0, 3, 'Error', 'events'],
      [1, 3, 'Error', 'events'],
      [2, 3, 'Error', 'events'],
    ]);
  });

  it('is axe-clean, light and dark', async () => {
    await app.go('Timeline');
    await page.getByRole('region', { name: 'Crash loops' }).waitFor();
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      const result = await runAxe(page);
      expect(result.failing, theme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
