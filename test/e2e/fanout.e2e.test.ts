/**
 * Run on many as a user sees it, in headless Chromium against the lab's containerd 2.x and
 * 1.6 as two nodes: a label selector picks six containers on both, `hostname; cat
 * /etc/hostname` runs on all of them, the grid groups five identical outputs and the odd
 * one, two rows are diffed side by side, the run is exported as JSON lines, and a long
 * streaming run is cancelled. Everything created carries `e2e-run=<run id>`.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './pages/app-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';
import { labDir, labRuntimes } from '../support/lab';

const lab = new LabSuite('fanout');
const { runId } = lab;
const other = labRuntimes().find(
  (runtime) => runtime.id.startsWith('containerd') && runtime.id !== lab.runtime.id,
);

describe('Run on many in the browser, against the lab', () => {
  let page: Page;
  let pageErrors: readonly unknown[];
  let app: AppPage;

  beforeAll(async () => {
    const sleep = ['sleep', '3600'];
    await lab.runPod('replicas', { r0: sleep, r1: sleep, r2: sleep }, { hostname: 'replica' });
    await lab.runPod(
      'more',
      { m0: sleep, m1: sleep },
      {
        hostname: 'replica',
        ...(other !== undefined && { runtime: other }),
      },
    );
    await lab.runPod(
      'odd',
      { o0: sleep },
      {
        hostname: 'odd',
        ...(other !== undefined && { runtime: other }),
      },
    );
    const opened = await lab.open({ env: { PORTHOLE_LAB_DIR: labDir() } });
    if (other !== undefined) await opened.core.services.nodes.connect(`local:${other.endpoint}`);
    ({ page, pageErrors } = opened.opened);
    app = new AppPage(page);
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  afterAll(() => lab.close());

  const form = () => page.getByRole('form', { name: 'Run a command on many containers' });
  const summary = () => page.locator('.fanout-summary');

  /** Shows the view with this suite's six containers picked: each test can run alone. */
  const pickSix = async (): Promise<void> => {
    await app.go('Run on many');
    await form().getByRole('radio', { name: 'Label selector' }).check();
    await form().getByRole('textbox', { name: 'Label selector' }).fill(`e2e-run=${runId}`);
  };

  it('runs one command on six containers on two nodes, groups the outputs and diffs two', async () => {
    await pickSix();
    await form().getByRole('textbox', { name: 'Command' }).fill('hostname; cat /etc/hostname');
    await form().getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => summary().textContent()).toBe('6/6 done · 5 identical, 1 differ');
    await expect(page.locator('.fanout-method').textContent()).resolves.toMatch(
      /^ExecSync: a short command/,
    );
    const groups = page.locator('.fanout-group');
    await expect
      .poll(() => groups.locator('h2').allTextContents())
      .toEqual(['5 identical · exit 0 · the most common output', '1 container · exit 0']);
    if (other !== undefined) {
      const nodes = await groups.first().locator('tbody tr td:nth-child(2)').allTextContents();
      expect(new Set(nodes).size).toBe(2);
    }
    await page.getByRole('button', { name: 'Show the output of o0' }).click();
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: 'stdout of o0' })
          .or(page.getByLabel('stdout of o0'))
          .textContent(),
      )
      .toBe('odd\nodd\n');
    await page.getByRole('checkbox', { name: 'Compare r0' }).check();
    await page.getByRole('checkbox', { name: 'Compare o0' }).check();
    const diff = page.getByRole('region', { name: 'Output diff' });
    await expect.poll(() => diff.getByRole('heading').textContent()).toBe('Diff: 4 changed lines');
    await expect
      .poll(() => diff.locator('tbody tr.diff-changed').allTextContents())
      .toEqual(['1replica1odd', '2replica2odd']);
    await screenshot(page, 'fanout-grid-diff');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON lines' }).click();
    const file = await (await download).path();
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines.map((line) => (JSON.parse(line) as { stdout: string }).stdout).sort()).toEqual([
      'odd\nodd\n',
      ...Array<string>(5).fill('replica\nreplica\n'),
    ]);
  });

  it('cancels a long streaming run: every row says so', async () => {
    await pickSix();
    await form().getByRole('textbox', { name: 'Command' }).fill('echo up; sleep 600');
    await form()
      .getByRole('spinbutton', { name: /^Timeout/ })
      .fill('0');
    await form().getByRole('button', { name: 'Run' }).click();
    // The line of a run before (when the file runs whole) stays until this run's rows
    // arrive: wait for it.
    await expect
      .poll(() => page.locator('.fanout-method').textContent())
      .toMatch(/^Streaming exec: no timeout/);
    await expect.poll(() => summary().textContent()).toMatch(/^0\/6 done · 6 running$/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => summary().textContent()).toBe('6/6 done · 6 cancelled');
    await screenshot(page, 'fanout-cancelled');
  });
});
