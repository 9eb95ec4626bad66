/**
 * Port forwards and the session monitor as a user sees them, against the real lab: a
 * forward created from a pod's "Forward port…" action (the pod's declared port offered),
 * fetched through from this test process, its bytes moving in the forwards table and in the
 * session monitor; a session killed from the monitor; many forwards stopped and started at
 * once. Each test makes the forwards it needs (through the core, but for the one about the
 * dialog) and they are removed after it. Everything created on the lab carries
 * `e2e-run=<run id>` and is removed afterwards.
 */
import { createHash } from 'node:crypto';
import { get } from 'node:http';
import { connect } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../electron/core/composition';
import { AppPage } from './pages/app-page';
import { ConfirmDialog } from './pages/dialogs';
import { ForwardDialogPage, ForwardsPage } from './pages/forwards-page';
import { ResourcesPage } from './pages/resources-page';
import { SessionsPage } from './pages/sessions-page';
import { screenshot } from './support/artifacts';
import type { OpenedApp } from './support/browser-app';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('fwd');
const { runId, runtime, cri, nodeId } = lab;
const webPod = lab.podName('fwd');
const DATA = 1024 * 1024;

/** GET through a forward from this process: the status and the body's sha256. */
function fetchThrough(url: string): Promise<{ status: number; sha256: string; length: number }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false }, (response) => {
      const hash = createHash('sha256');
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        length += chunk.length;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, sha256: hash.digest('hex'), length }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(20_000, () => request.destroy(new Error('timed out')));
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** "1.00 MiB" → bytes, as the tables print them. */
function parseBytes(text: string): number {
  const match = /([\d.]+)\s*(B|KiB|MiB|GiB)/.exec(text);
  if (match === null) return Number.NaN;
  const units: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
  return Number(match[1]) * (units[match[2] ?? 'B'] ?? 1);
}

const webTarget = { kind: 'pod', namespace: 'porthole-test', name: webPod } as const;

/** Its row in the monitor: the session's detail names the local port. */
const bindingOf = (url: string): RegExp => new RegExp(`127\\.0\\.0\\.1:${new URL(url).port} →`);

describe('port forwards and the session monitor, against the lab', () => {
  let core: Core;
  let opened: OpenedApp;
  let page: Page;
  let app: AppPage;
  let dataSha = '';

  const isConnected = async (): Promise<boolean> =>
    (await core.services.nodes.list()).some(
      (node) => node.nodeId === nodeId && node.state === 'connected',
    );

  /** The lab node connected, as a test that is not about connecting needs it. */
  async function connected(): Promise<void> {
    if (!(await isConnected())) await core.services.nodes.connect(nodeId);
  }

  /** A forward to the web pod's 8080 on a free local port, made as any client would. */
  async function startForward(name?: string): Promise<{ id: string; url: string }> {
    await connected();
    const entry = await core.services.forwards.create(
      nodeId,
      { target: webTarget, ports: [{ localPort: 0, remotePort: 8080 }] },
      name === undefined ? {} : { name },
    );
    const port = entry.live?.ports[0]?.localPort;
    if (port === undefined) throw new Error(`the forward did not start: ${JSON.stringify(entry)}`);
    return { id: entry.id, url: `http://127.0.0.1:${port}` };
  }

  /** Waits until the core counts at least `bytes` in from the forward. */
  async function bytesInAtLeast(id: string, bytes: number): Promise<void> {
    await expect
      .poll(
        async () =>
          (await core.services.forwards.list()).find((entry) => entry.id === id)?.live?.metrics
            .bytesIn ?? 0,
        { timeout: 10_000 },
      )
      .toBeGreaterThanOrEqual(bytes);
  }

  beforeAll(async () => {
    const pod = await lab.runPod(
      'fwd',
      {
        web: [
          'sh',
          '-c',
          `mkdir -p /www && head -c ${DATA} /dev/urandom > /tmp/data && mv /tmp/data /www/data && touch /www/ready && exec httpd -f -p 8080 -h /www`,
        ],
      },
      { portMappings: [{ protocol: 'TCP', containerPort: 8080, hostPort: 0, hostIp: '' }] },
    );
    const containerId = pod.containerIds.web ?? '';
    // httpd starts once the data file is written. It is written elsewhere and moved into
    // place, so a sha256sum that finds /www/data reads it whole (summed while head was
    // still writing, it named a partial file: seen on a loaded machine).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const sum = await cri.execSync(containerId, ['sha256sum', '/www/data'], 10);
      if (
        sum.exitCode === 0 &&
        (await cri.execSync(containerId, ['test', '-f', '/www/ready'], 10)).exitCode === 0
      ) {
        dataSha = new TextDecoder().decode(sum.stdout).split(' ')[0] ?? '';
        break;
      }
      if (Date.now() > deadline) throw new Error('the web pod did not get ready');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // The suite connects the node from the UI. Wide enough for every column of both
    // tables (narrower windows drop the least useful).
    ({ core, opened, page } = await lab.open({
      connect: false,
      window: { width: 1680, height: 950 },
    }));
    app = new AppPage(page);
  });

  afterEach(async () => {
    for (const entry of await core.services.forwards.list())
      await core.services.forwards.remove(entry.id);
    expect(opened.pageErrors).toEqual([]);
    // Nothing opened another page: the app stays the page in front.
    expect(page.context().pages()).toEqual([page]);
  });

  afterAll(() => lab.close());

  it('creates a forward from the pod, its declared port offered, and fetches through it', async () => {
    // Connected from its card, as a user does.
    if (await isConnected()) await core.services.nodes.disconnect(nodeId);
    await app.go('Nodes');
    const card = page.getByRole('article').filter({ hasText: runtime.endpoint });
    await card.getByRole('button', { name: 'Connect' }).click();
    await card.getByRole('button', { name: 'Disconnect' }).waitFor({ timeout: 30_000 });

    await app.go('Pods');
    const pods = new ResourcesPage(page, 'pods');
    await pods.row(webPod).waitFor();
    await pods.open(webPod);
    await pods.detailAction('Forward port…').click();

    const dialog = new ForwardDialogPage(page);
    await dialog.declared(8080).waitFor();
    // The declared port fills the first row; the local port is picked automatically.
    await expect.poll(() => dialog.podPort.inputValue()).toBe('8080');
    expect(await dialog.localPort.inputValue()).toBe('');
    // Anything beyond loopback is called out before it is created.
    await dialog.listenOn(/Every network interface/).check();
    await dialog.dialog.getByText('Other machines can reach this forward.').waitFor();
    await dialog.listenOn(/This machine only/).check();
    await expect
      .poll(() => dialog.dialog.getByText('Other machines can reach this forward.').count())
      .toBe(0);
    await dialog.start();
    await dialog.dialog.waitFor({ state: 'detached', timeout: 30_000 });

    const forwards = new ForwardsPage(page);
    await forwards.heading.waitFor();
    const row = forwards.row(webPod);
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toContain('active');
    const link = forwards.link(webPod);
    const forwardUrl = (await link.getAttribute('href')) ?? '';
    expect(forwardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');

    for (let i = 0; i < 3; i++) {
      expect(await fetchThrough(`${forwardUrl}/data`)).toEqual({
        status: 200,
        sha256: dataSha,
        length: DATA,
      });
    }
    // Its traffic shows in the table as it happens.
    await expect
      .poll(async () => parseBytes((await (await forwards.cell(row, 'In')).textContent()) ?? ''), {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(3 * DATA);
    // Not the middle of the row: that is its link, which opens the forward in a new page
    // (and the app, in the background then, would draw at a frame a second).
    await (await forwards.cell(row, 'State')).click();
    const detail = forwards.detail(`Forward porthole-test/${webPod} 8080`);
    await detail.getByRole('table', { name: 'Connections' }).waitFor();
    await expect
      .poll(() => detail.getByRole('table', { name: 'Connections' }).locator('tbody tr').count())
      .toBeGreaterThanOrEqual(3);
    await screenshot(page, 'port-forwards-view');
  });

  it('shows the forward in the session monitor, its bytes moving', async () => {
    const { id, url: forwardUrl } = await startForward();
    for (let i = 0; i < 3; i++) await fetchThrough(`${forwardUrl}/data`);
    await bytesInAtLeast(id, 3 * DATA);
    // The monitor opens on the counters as they are, not as of its last tick.
    const sessions = new SessionsPage(page);
    await sessions.go();
    const row = sessions.row(bindingOf(forwardUrl));
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('Port forward');
    await expect.poll(() => row.textContent()).toContain('active');
    await expect
      .poll(async () => (await sessions.cell(row, 'Transport')).textContent())
      .toBe('SPDY · portforward.k8s.io');
    const inCell = await sessions.cell(row, 'In');
    await expect
      .poll(async () => parseBytes((await inCell.textContent()) ?? ''), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(3 * DATA);
    const before = parseBytes((await inCell.textContent()) ?? '');

    // Traffic while watching: the bytes and the throughput sparkline follow.
    for (let i = 0; i < 4; i++) await fetchThrough(`${forwardUrl}/data`);
    await expect
      .poll(async () => parseBytes((await inCell.textContent()) ?? ''), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(before + 4 * DATA);
    await expect.poll(() => row.locator('svg.sparkline path').count(), { timeout: 10_000 }).toBe(1);
    await row.click();
    await sessions.detail.waitFor();
    await expect
      .poll(() => sessions.detail.getByRole('table', { name: 'Attempts' }).textContent())
      .toContain('ok');
    await screenshot(page, 'sessions-monitor');
  });

  it('kills the forward from the monitor: the session ends and the port closes', async () => {
    const { url: forwardUrl } = await startForward();
    const sessions = new SessionsPage(page);
    await sessions.go();
    const row = sessions.row(bindingOf(forwardUrl));
    await row.getByRole('button', { name: /^Kill Port forward session/ }).click();
    const confirm = new ConfirmDialog(page);
    await expect.poll(() => confirm.dialog.textContent()).toContain('The forward stops');
    await confirm.confirm();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('ended');
    await expect.poll(() => row.textContent()).toContain('Killed from the session monitor.');
    expect(await row.getByRole('button', { name: /^Kill/ }).count()).toBe(0);
    const port = Number(new URL(forwardUrl).port);
    expect(await refused(port)).toBe(true);

    // Live only: the ended session is in the history, not among the live ones.
    await page.getByRole('combobox', { name: 'Live or ended' }).selectOption('live');
    await expect.poll(() => row.count()).toBe(0);
    await page.getByRole('combobox', { name: 'Live or ended' }).selectOption('all');

    // The forward itself stays listed, stopped, with its id; no error: it was asked to stop.
    const forwards = new ForwardsPage(page);
    await forwards.go();
    await expect.poll(() => forwards.row(webPod).textContent()).toContain('stopped');
  });

  it('starts and stops many forwards at once, every change visible', async () => {
    const first = await startForward(`first ${runId}`);
    const second = await startForward(`second ${runId}`);
    const forwardUrl = first.url;
    const forwards = new ForwardsPage(page);
    await forwards.go();
    await expect.poll(() => forwards.rows.count()).toBe(2);
    // Stopped, as the bulk Start is to start them.
    await core.services.forwards.stop(first.id);
    await core.services.forwards.stop(second.id);
    await expect
      .poll(async () =>
        (await forwards.rows.allTextContents()).filter((text) => text.includes('stopped')),
      )
      .toHaveLength(2);
    await forwards.selectAll();
    await forwards.bulk('Start').click();
    await expect
      .poll(
        async () =>
          (await forwards.rows.allTextContents()).filter((text) => text.includes('active')).length,
        {
          timeout: 30_000,
        },
      )
      .toBe(2);
    // Restarted, it asks for the same local port again, so the URL still works.
    expect((await fetchThrough(`${forwardUrl}/data`)).sha256).toBe(dataSha);

    await forwards.bulk('Stop').click();
    await expect
      .poll(
        async () =>
          (await forwards.rows.allTextContents()).filter((text) => text.includes('stopped')).length,
        {
          timeout: 10_000,
        },
      )
      .toBe(2);
    expect(await refused(Number(new URL(forwardUrl).port))).toBe(true);

    await forwards.bulk('Remove').click();
    await new ConfirmDialog(page).confirm();
    await expect.poll(() => forwards.rows.count()).toBe(0);
  });
});
