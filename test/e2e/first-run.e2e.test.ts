/**
 * A new user's first run, followed as they would: Porthole finds no runtime, says where
 * it looked and what to do (start the lab, press Discover); the lab comes up, Discover
 * finds its runtimes and says so, and one connects. Porthole reads the lab from a lab
 * directory of the test's own, so the machine's lab (which must be up) is "started" by
 * writing its state file there, as `npm run lab -- up` does last: the test never starts
 * or stops a runtime.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labDir, labRuntimes } from '../support/lab';
import { AppPage } from './pages/app-page';
import { NodesPage } from './pages/nodes-page';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('first-run');
const runtimes = labRuntimes();

describe('a first run, the empty state’s advice followed', () => {
  let page: Page;
  let pageErrors: readonly string[];
  let app: AppPage;
  let nodes: NodesPage;
  // Where this Porthole looks for the lab: empty until the lab "comes up".
  const ownLabDir = mkdtempSync(join(tmpdir(), 'phe2e-lab-'));
  const stateFile = join(ownLabDir, 'lab.json');

  beforeAll(async () => {
    await lab.runPod('first', { app: ['sleep', '3600'] });
    ({
      page,
      opened: { pageErrors },
    } = await lab.open({
      connect: false,
      // No runtime named anywhere: only the well-known sockets and the lab's state file.
      env: { CONTAINER_RUNTIME_ENDPOINT: undefined, PORTHOLE_LAB_DIR: ownLabDir },
    }));
    app = new AppPage(page);
    nodes = new NodesPage(page);
  });

  afterAll(async () => {
    await lab.close();
    rmSync(ownLabDir, { recursive: true, force: true });
  });

  it('says no runtime was found, where it looked, and what to do', async () => {
    const empty = page.getByRole('status').filter({ hasText: 'No runtime found' });
    await empty.waitFor();
    // The exact command for the lab directory this Porthole reads, and the file it reads.
    await expect
      .poll(() => empty.textContent())
      .toContain(`PORTHOLE_LAB_DIR=${ownLabDir} npm run lab -- up`);
    expect(await empty.textContent()).toContain(stateFile);
    const outcome = page.getByRole('status', { name: 'Discovery' });
    await expect.poll(() => outcome.textContent()).toContain('Discover found no runtime');
    const places = await outcome.getByRole('listitem').allTextContents();
    expect(places).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`${stateFile} — not there: the lab is not up`),
        expect.stringContaining('CONTAINER_RUNTIME_ENDPOINT — not set'),
        expect.stringContaining('/run/containerd/containerd.sock — no socket'),
      ]),
    );
    await screenshot(page, 'first-run-1-no-runtime');
  });

  it('finds the lab once it is up, says so, and connects to it', async () => {
    // What `npm run lab -- up` leaves behind when its runtimes are ready.
    copyFileSync(join(labDir(), 'lab.json'), stateFile);
    await page.getByRole('button', { name: 'Discover' }).first().click();
    const outcome = page.getByRole('status', { name: 'Discovery' });
    const names = runtimes.map((runtime) => `lab ${runtime.id}`);
    await expect
      .poll(() => outcome.textContent())
      .toContain(
        `Discover found ${runtimes.length} ${runtimes.length === 1 ? 'runtime' : 'runtimes'}: ${names.join(', ')}`,
      );
    for (const name of names) await nodes.card(name).waitFor();
    await nodes.connect(`lab ${lab.runtime.id}`);
    await nodes.waitConnected(`lab ${lab.runtime.id}`);
    await screenshot(page, 'first-run-2-lab-found');
    await app.go('Pods');
    await new ResourcesPage(page, 'pods').row(lab.podName('first')).waitFor();
  });

  it('says what it found every time it is pressed, also when nothing changed', async () => {
    await app.go('Nodes');
    const outcome = page.getByRole('status', { name: 'Discovery' });
    expect(await outcome.textContent()).not.toContain('as before');
    await page.getByRole('button', { name: 'Discover' }).first().click();
    await expect
      .poll(() => outcome.textContent())
      .toMatch(/^Discover found \d+ runtimes?: .*, as before/);
    expect(pageErrors).toEqual([]);
  });
});
