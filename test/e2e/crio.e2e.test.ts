/**
 * Porthole against CRI-O, as a user sees it: the UI is proven on containerd 2.x by the
 * other e2e suites, so this one only walks what CRI-O does differently. The node card says
 * it is CRI-O with live updates; the Run-pod dialog's starter spec runs as it is (CRI-O
 * checks the image the user asked for, needs the log directory made first and a PID
 * namespace per container here); the pod's stats are the sum of its containers, and say
 * so; Stop pod waits out the grace chosen. Everything created carries the run's label.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { starterSpec } from '../../renderer/src/features/resources/run-spec';
import { labRuntimes, labSkipped } from '../support/lab';
import { AppPage } from './pages/app-page';
import { ConfirmDialog, RunSpecDialog } from './pages/dialogs';
import { NodesPage } from './pages/nodes-page';
import { ResourcesPage } from './pages/resources-page';
import { StatsPage } from './pages/stats-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';

const crio = labRuntimes().find((runtime) => runtime.kind === 'cri-o');

if (crio === undefined) {
  describe('Porthole against CRI-O', () => {
    const reason = labSkipped().find((entry) => entry.id === 'cri-o')?.reason;
    it.skip(`not tested: ${reason ?? 'the lab runs no CRI-O'}`, () => undefined);
  });
} else {
  describe('Porthole against CRI-O', () => {
    const lab = new LabSuite('crio', crio);
    const podName = lab.podName('starter');
    const logDirectory = join(crio.podLogDir, `e2e-${lab.runId}`);
    let page: Page;
    let pageErrors: readonly unknown[];
    let app: AppPage;

    beforeAll(async () => {
      lab.removeOnClose(logDirectory);
      const { opened } = await lab.open();
      ({ page, pageErrors } = opened);
      app = new AppPage(page);
    });

    afterAll(() => lab.close());

    it('shows the node as CRI-O, kept live by its container events', async () => {
      const card = new NodesPage(page).card(/cri-o/);
      await expect.poll(() => card.textContent()).toContain(`cri-o ${crio.versionFull}`);
      await expect
        .poll(() => card.textContent())
        .toContain('Live, from the runtime’s container events');
    });

    it('runs the starter spec as it is', async () => {
      await app.go('Pods');
      const run = new RunSpecDialog(page);
      await run.open();
      // The starter spec unchanged but for a name, a label and a log directory of this run.
      await run.replaceText(
        starterSpec()
          .replace('name: porthole-demo', `name: ${podName}`)
          .replace(
            'app: porthole-demo\n  logDirectory',
            `app: porthole-demo\n    e2e-run: "${lab.runId}"\n  logDirectory`,
          )
          .replace('logDirectory: /tmp/porthole-demo/logs', `logDirectory: ${logDirectory}`),
      );
      await expect.poll(() => run.status.textContent()).toContain('The spec is valid');
      await run.run();
      await app.toast(`Started ${podName} with 1 container`).waitFor({ timeout: 30_000 });
      const pods = new ResourcesPage(page, 'pods');
      await pods.filter(lab.runId);
      await expect
        .poll(() => pods.row(podName).textContent(), { timeout: 20_000 })
        .toMatch(/ready.*1\/1/);
      await screenshot(page, 'crio-starter-pod');
    });

    it('charts the pod as the sum of its containers, and says why', async () => {
      const stats = new StatsPage(page);
      await stats.go();
      await stats.show('Pods');
      await page
        .getByRole('status')
        .filter({ hasText: 'sum of its containers' })
        .waitFor({ timeout: 20_000 });
      await expect
        .poll(() => stats.row(new RegExp(`^${podName}`)).textContent(), { timeout: 20_000 })
        .toContain('sum of containers');
      await screenshot(page, 'crio-pod-stats');
    });

    it('stops the pod with the grace period chosen', async () => {
      await app.go('Pods');
      const pods = new ResourcesPage(page, 'pods');
      await pods.open(podName);
      await pods.detailAction('Stop').click();
      const dialog = new ConfirmDialog(page);
      const grace = dialog.dialog.getByRole('textbox', { name: 'Grace period (seconds)' });
      await expect
        .poll(() => dialog.dialog.textContent())
        .toContain('is waited out for the whole grace period');
      await grace.fill('1');
      await dialog.dialog.getByRole('button', { name: 'Stop', exact: true }).click();
      await app.toast(`Stopped pod ${podName}`).waitFor({ timeout: 30_000 });
      await expect
        .poll(() => pods.row(podName).textContent(), { timeout: 20_000 })
        .toContain('not ready');
      expect(pageErrors).toEqual([]);
    });
  });
}
