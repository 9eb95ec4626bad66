/**
 * A container's files as a user moves them, against the lab: the real core in browser
 * mode, headless Chromium. Files on a container opens its root; Enter goes into a
 * directory and the breadcrumb back out; Download saves the file itself through the
 * host's download address (the browser streams it to disk) with its progress in
 * Transfers; files dropped on the view are uploaded by tar into the directory shown.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './pages/app-page';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('files');
const size = 8 * 1024 * 1024;

describe('Files of a container, in the browser', () => {
  let page: Page;
  let app: AppPage;
  let boxId = '';

  const exec = async (script: string): Promise<string> => {
    const result = await lab.cri.execSync(boxId, ['sh', '-c', script], 60);
    return Buffer.from(result.stdout).toString('utf8');
  };

  beforeAll(async () => {
    const pod = await lab.runPod('files', { box: ['sleep', '3600'] });
    boxId = pod.containerIds.box!;
    await exec(
      `mkdir -p /data && head -c ${size} /dev/urandom > /data/big.bin && printf hi > /data/hello.txt`,
    );
    ({ page } = await lab.open());
    app = new AppPage(page);
  });

  afterAll(() => lab.close());

  const grid = (path: string) => page.getByRole('grid', { name: `Files in ${path}` });
  const row = (path: string, name: string) =>
    grid(path)
      .locator('[role="row"][data-key]')
      .filter({ hasText: new RegExp(`^${name}`) });

  /** The box's files from its details, in /data, by the keyboard: each test starts here. */
  const showData = async (): Promise<void> => {
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.filter(lab.runId);
    await containers.open(/^box/);
    await containers.detailAction(/^Files$/).click();
    await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
    await row('/', 'data/').waitFor({ timeout: 20_000 });
    await row('/', 'data/').click();
    await page.keyboard.press('Enter');
    await row('/data', 'big.bin').waitFor();
  };

  it('browses into a directory from the keyboard and back with the breadcrumb', async () => {
    await showData();
    expect(await row('/data', 'hello.txt').textContent()).toContain('-rw-r--r--');
    await screenshot(page, 'files-browse');
    const path = page.getByRole('navigation', { name: 'Path' });
    await path.getByRole('button', { name: '/' }).click();
    await row('/', 'data/').waitFor();
    await row('/', 'data/').click();
    await page.keyboard.press('Enter');
    await row('/data', 'big.bin').waitFor();
  });

  it('downloads a file with its progress, the bytes matching the container', async () => {
    await showData();
    const [theirs] = (await exec('sha256sum /data/big.bin')).split(' ');
    await row('/data', 'big.bin').click();
    const saved = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download', exact: true }).click();
    const download = await saved;
    expect(download.suggestedFilename()).toBe('big.bin');
    const file = await download.path();
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(theirs);
    const transfers = page.getByRole('region', { name: 'Transfers' });
    const item = transfers.getByRole('listitem').filter({ hasText: 'Download of big.bin' });
    await item.getByText('done').waitFor();
    await item.getByText('sha256 ✓').waitFor();
    expect(await item.getByRole('progressbar').getAttribute('value')).toBe(String(size));
    await screenshot(page, 'files-download');
  });

  it('uploads files dropped on the view into the directory shown', async () => {
    await showData();
    const data = await page.evaluateHandle(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['dropped by drag and drop'], 'dropped file.txt'));
      return transfer;
    });
    const zone = page.locator('.files-drop');
    await zone.dispatchEvent('dragover', { dataTransfer: data });
    await zone.dispatchEvent('drop', { dataTransfer: data });
    await row('/data', 'dropped file.txt').waitFor({ timeout: 20_000 });
    expect(await exec('cat "/data/dropped file.txt"')).toBe('dropped by drag and drop');
    const item = page
      .getByRole('region', { name: 'Transfers' })
      .getByRole('listitem')
      .filter({ hasText: 'Upload of dropped file.txt' });
    await item.getByText('done').waitFor();
    await screenshot(page, 'files-upload');
  });
});
