/**
 * A new user's first hour, against the real lab with both its runtimes connected: what
 * tripped the first person who tried Porthole (issue 15), each now a test of what a user
 * sees. First a walk through every view at 1280×800 and 1920×1080, light and dark, with
 * something in each (pods on two nodes, one whose stats can't be read, a terminal split in
 * two, a forward moving data, a followed log): a screenshot of each
 * (test/e2e/artifacts/look-*.png, for a person to look at) and a check that no text in a
 * table cell or a toolbar is cut off without a tooltip. Then the fixes one by one.
 * Everything created on the lab carries `e2e-run=<run id>` and is removed afterwards.
 */
import { mkdtempSync, readdirSync, rmdirSync, rmSync, symlinkSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../electron/core/composition';
import { labDir, labRuntimes, TEST_NAMESPACE, type LabRuntime } from '../support/lab';
import { AppPage, type ViewName } from './pages/app-page';
import { RunSpecDialog } from './pages/dialogs';
import { ForwardDialogPage } from './pages/forwards-page';
import { NodesPage } from './pages/nodes-page';
import { ResourcesPage } from './pages/resources-page';
import { StatsPage } from './pages/stats-page';
import { TerminalPage } from './pages/terminal-page';
import { screenshot } from './support/artifacts';
import { findClippedText, type ClippedText } from './support/clipping';
import { LabSuite } from './support/lab-app';

const lab = new LabSuite('first-hour');
const runtimes = labRuntimes();
const older: LabRuntime | undefined = runtimes.length > 1 ? runtimes[0] : undefined;
const DATA = 4 * 1024 * 1024;

/** Keeps fetching `url` (a few MiB a second) until stopped: traffic for the monitor to show. */
function pump(url: string): () => Promise<void> {
  let running = true;
  const done = (async () => {
    while (running) {
      await fetchAll(url);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

/** GETs a URL through the forward until the pod's web server answers with all of it. */
async function fetchAll(url: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const length = await new Promise<number>((resolve) => {
      const request = get(url, { agent: false }, (response) => {
        let total = 0;
        response.on('data', (chunk: Buffer) => (total += chunk.length));
        response.on('end', () => resolve(response.statusCode === 200 ? total : -1));
        response.on('error', () => resolve(-1));
      });
      request.on('error', () => resolve(-1));
    });
    if (length === DATA || attempt > 100) return length;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The cgroup v1 hierarchies (cpu, memory…), where a cgroup exists once per controller. */
function cgroupHierarchies(): string[] {
  try {
    return readdirSync('/sys/fs/cgroup').map((name) => join('/sys/fs/cgroup', name));
  } catch {
    return [];
  }
}

describe('a first hour with Porthole', () => {
  let core: Core;
  let page: Page;
  let pageErrors: readonly string[];
  let app: AppPage;
  let dataUrl = '';
  const scratch = mkdtempSync(join(tmpdir(), 'phe2e-hour-'));
  /** Cgroups the runtime made for pods run from the template (runc leaves their parent). */
  const cgroupParents: string[] = [];
  const webPod = lab.podName('web');

  beforeAll(async () => {
    await lab.runPod('web', {
      web: [
        'sh',
        '-c',
        `mkdir -p /www && head -c ${DATA} /dev/urandom > /www/data && exec httpd -f -p 8080 -h /www`,
      ],
      'metrics-exporter-sidecar': [
        'sh',
        '-c',
        'i=0; while true; do i=$((i+1)); echo "scrape $i: 42 series"; echo "warn: slow target" >&2; sleep 1; done',
      ],
    });
    if (older !== undefined) {
      // No cgroup parent: the runtime can't read this pod's own stats.
      await lab.runPod(
        'batch',
        { worker: ['sleep', '3600'] },
        { runtime: older, cgroupParent: false },
      );
    }
    // Discovery finds both lab runtimes through the lab's state file.
    ({
      core,
      page,
      opened: { pageErrors },
    } = await lab.open({
      env: { CONTAINER_RUNTIME_ENDPOINT: undefined, PORTHOLE_LAB_DIR: labDir() },
      window: { width: 1280, height: 800 },
    }));
    if (older !== undefined) await core.services.nodes.connect(`local:${older.endpoint}`);
    app = new AppPage(page);

    const forward = await core.services.forwards.create(lab.nodeId, {
      target: { kind: 'pod', namespace: TEST_NAMESPACE, name: webPod },
      ports: [{ localPort: 0, remotePort: 8080 }],
    });
    const port = forward.live?.ports[0]?.localPort ?? 0;
    dataUrl = `http://127.0.0.1:${port}/data`;
    if ((await fetchAll(dataUrl)) !== DATA) {
      throw new Error('The web pod did not serve its data through the forward');
    }

    // A shell, split in two.
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.filter(lab.runId);
    await containers.open(/^web/);
    await containers.detailAction('Shell').click();
    const terminals = new TerminalPage(page);
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
    await terminals.waitForPrompt(terminals.pane(0));
    await terminals.run(terminals.pane(0), 'ls /');
    await terminals.focus(terminals.pane(0));
    await page.keyboard.press('Control+Shift+E');
    await terminals.pane(1).waitFor();
    await terminals.waitForPrompt(terminals.pane(1));

    // A followed log.
    await app.go('Containers');
    await containers.open(/^metrics-exporter/);
    await containers.filter('');
    await containers.openLogs();
    await page
      .getByRole('list', { name: 'Log lines' })
      .getByText(/scrape \d+/)
      .first()
      .waitFor();
  });

  afterAll(async () => {
    await lab.close();
    rmSync(scratch, { recursive: true, force: true });
    if (older !== undefined) {
      rmSync(join(older.podLogDir, `e2e-${lab.runId}-tmpl`), { recursive: true, force: true });
    }
    // The empty cgroups the pod's parent and its own parent became, in every hierarchy
    // (cgroup v1 or v2); one that is not empty (another pod's) stays.
    for (const parent of [...cgroupParents, ...new Set(cgroupParents.map(dirname))]) {
      for (const root of ['/sys/fs/cgroup', ...cgroupHierarchies()]) {
        try {
          rmdirSync(join(root, parent));
        } catch {
          // Not in this hierarchy, or not empty yet: nothing of ours to remove.
        }
      }
    }
  });

  /** Each view, what to do there, and what shows it is ready. */
  const views: readonly { name: string; view: ViewName; ready: (page: Page) => Promise<void> }[] = [
    { name: 'nodes', view: 'Nodes', ready: (p) => p.getByRole('article').first().waitFor() },
    {
      name: 'pods',
      view: 'Pods',
      ready: (p) => new ResourcesPage(p, 'pods').row(webPod).waitFor(),
    },
    {
      name: 'containers',
      view: 'Containers',
      ready: async (p) => {
        const containers = new ResourcesPage(p, 'containers');
        await containers.row(/^web/).click();
        await containers.detail.waitFor();
      },
    },
    {
      name: 'images',
      view: 'Images',
      ready: (p) => new ResourcesPage(p, 'images').rows.first().waitFor(),
    },
    { name: 'terminals', view: 'Terminals', ready: (p) => new TerminalPage(p).pane(1).waitFor() },
    {
      name: 'forwards',
      view: 'Port forwards',
      ready: (p) =>
        p.getByRole('grid', { name: 'Port forwards' }).getByText(webPod).first().waitFor(),
    },
    {
      name: 'sessions',
      view: 'Sessions',
      // The forward moving MiB a second: its rate fits the Throughput cell whole.
      ready: (p) =>
        p
          .getByRole('grid', { name: 'Sessions' })
          .locator('.session-throughput')
          .getByText(/MiB\/s$/)
          .first()
          .waitFor({ timeout: 20_000 }),
    },
    {
      name: 'logs',
      view: 'Logs',
      ready: (p) =>
        p
          .getByRole('list', { name: 'Log lines' })
          .getByText(/scrape/)
          .first()
          .waitFor(),
    },
    {
      name: 'stats-containers',
      view: 'Stats',
      ready: async (p) => {
        const stats = new StatsPage(p);
        await stats.node(`lab ${lab.runtime.id}`);
        await stats.show('Containers');
        await stats.row(/^web/).waitFor({ timeout: 20_000 });
      },
    },
    {
      name: 'stats-pods',
      view: 'Stats',
      ready: async (p) => {
        const stats = new StatsPage(p);
        await stats.node(`lab ${(older ?? lab.runtime).id}`);
        await stats.show('Pods');
        await stats.legend.locator('tbody tr').first().waitFor({ timeout: 20_000 });
      },
    },
  ];

  it('shows every view whole: no text cut off without a tooltip', async () => {
    const clipped: (ClippedText & { view: string })[] = [];
    const stopPump = pump(dataUrl);
    try {
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme });
        for (const [width, height] of [
          [1280, 800],
          [1920, 1080],
        ] as const) {
          await page.setViewportSize({ width, height });
          for (const [index, { name, view, ready }] of views.entries()) {
            await app.go(view);
            await ready(page);
            const shot = `look-${width}x${height}-${theme}-${String(index + 1).padStart(2, '0')}-${name}`;
            for (const found of await findClippedText(page)) clipped.push({ ...found, view: shot });
            await screenshot(page, shot);
          }
        }
      }
    } finally {
      await stopPump();
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(clipped).toEqual([]);
  });

  it.runIf(older !== undefined)(
    "labels each row's node by what sets it apart, full name on hover, in a column that resizes",
    async () => {
      const other = older as LabRuntime;
      // "lab containerd-1.6" and "lab containerd-2" differ in their last word.
      const label = (id: string) => id;
      await app.go('Pods');
      const pods = new ResourcesPage(page, 'pods');
      const node = (row: ReturnType<ResourcesPage['row']>) => row.locator('.node-label');
      await expect.poll(() => node(pods.row(webPod)).textContent()).toBe(label(lab.runtime.id));
      expect(await node(pods.row(lab.podName('batch'))).textContent()).toBe(label(other.id));
      expect(await node(pods.row(webPod)).getAttribute('title')).toBe(
        `lab ${lab.runtime.id}\n${lab.runtime.endpoint}`,
      );
      for (const view of ['Containers', 'Images'] as const) {
        await app.go(view);
        const table = new ResourcesPage(page, view === 'Images' ? 'images' : 'containers');
        // With the details open, a narrow table gives the Node column up first.
        if ((await table.detail.count()) > 0) await page.keyboard.press('Escape');
        await expect
          .poll(() => table.grid.locator('.node-label').allTextContents())
          .toEqual(expect.arrayContaining([label(lab.runtime.id), label(other.id)]));
      }
      await app.go('Sessions');
      await expect
        .poll(() =>
          page.getByRole('grid', { name: 'Sessions' }).locator('.node-label').allTextContents(),
        )
        .toContain(label(lab.runtime.id));

      // Dragging the Node header's edge widens the column, and the width stays.
      await app.go('Pods');
      const header = pods.grid.getByRole('columnheader', { name: /^Node/ });
      const handle = header.getByRole('separator', { name: 'Resize the Node column' });
      // Measured once the view is drawn: a box read before is null, or the width 0.
      await handle.waitFor({ state: 'visible' });
      const before = (await header.boundingBox())?.width ?? 0;
      expect(before).toBeGreaterThan(0);
      const box = await handle.boundingBox();
      if (box === null) throw new Error('no resize handle');
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + 80, box.y + box.height / 2, { steps: 4 });
      await page.mouse.up();
      await expect
        .poll(async () => (await header.boundingBox())?.width ?? 0)
        .toBeGreaterThan(before + 60);
      const widened = (await header.boundingBox())?.width ?? 0;
      await app.go('Containers');
      await app.go('Pods');
      await expect.poll(async () => (await header.boundingBox())?.width ?? 0).toBe(widened);
      // A double click gives it its default width back.
      await handle.dblclick();
      await expect.poll(async () => (await header.boundingBox())?.width ?? 0).toBeLessThan(widened);
    },
  );

  it('opens the details on a single click, and says so', async () => {
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.row(/^web/).click();
    await expect
      .poll(() => containers.detail.getByRole('heading', { level: 2 }).textContent())
      .toBe('web');
    // The details follow the selection from there.
    await containers.row(/^metrics-exporter/).click();
    await expect
      .poll(() => containers.detail.getByRole('heading', { level: 2 }).textContent())
      .toBe('metrics-exporter-sidecar');
    await page.keyboard.press('Escape');
    await containers.detail.waitFor({ state: 'detached' });
    expect(await app.sidebar.textContent()).toContain('Click a row for its details');
  });

  it('says what a "?" capability mark means and how to find out', async () => {
    await app.go('Nodes');
    const unknown = page.locator('li.capability[data-state="unknown"]').first();
    await unknown.waitFor();
    expect(await unknown.getAttribute('title')).toMatch(
      /^Unknown: .*(crictl [a-z-]+).* on the node/,
    );
    const supported = page.locator('li.capability[data-state="supported"]').first();
    expect(await supported.getAttribute('title')).toMatch(
      /^Supported: the runtime answered \w+\.$/,
    );
  });

  it('tells the two panes of a split terminal apart in the palette', async () => {
    const palette = await app.openPalette();
    await palette.input.fill('go to terminal web');
    await expect
      .poll(() => palette.options.allTextContents())
      .toEqual([
        expect.stringContaining('web › ash (tab 1, pane 1 of 2)'),
        expect.stringContaining('web › ash (tab 1, pane 2 of 2)'),
      ]);
    await page.keyboard.press('Escape');
  });

  it('uses the keys a browser leaves to pages, and says which in the shortcuts help', async () => {
    await app.go('Nodes');
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    const note = help.getByRole('note');
    expect(await note.textContent()).toContain(
      'In a browser window, Ctrl+1–9, Ctrl+Shift+W and Ctrl+PageUp / Ctrl+PageDown belong to the browser',
    );
    expect(await note.textContent()).toContain('Alt+Shift+1–9, Alt+Shift+W');
    expect(await help.textContent()).toContain('Alt+Shift+WClose the pane');
    await screenshot(page, 'first-hour-shortcuts-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });

    // Views: Alt+Shift+2 is Pods; Ctrl+2 is the browser's, and Porthole leaves it alone.
    await page.keyboard.press('Control+2');
    await page.getByRole('heading', { level: 1, name: 'Nodes' }).waitFor();
    await page.keyboard.press('Alt+Shift+Digit2');
    await page.getByRole('heading', { level: 1, name: 'Pods' }).waitFor();
    const palette = await app.openPalette();
    await palette.input.fill('go to pods');
    expect(await palette.options.first().textContent()).toContain('Alt+Shift+2');
    await page.keyboard.press('Escape');

    // In a terminal, Alt+Shift+W closes the pane (Ctrl+Shift+W would close the window).
    const terminals = new TerminalPage(page);
    await terminals.go();
    const panes = await terminals.panes.count();
    await terminals.focus(terminals.pane(panes - 1));
    await page.keyboard.press('Control+Shift+E');
    await expect.poll(() => terminals.panes.count()).toBe(panes + 1);
    await terminals.focus(terminals.pane(panes));
    await page.keyboard.press('Alt+Shift+KeyW');
    await expect.poll(() => terminals.panes.count()).toBe(panes);
  });

  it('counts the pod sandboxes as users of the image they run from', async () => {
    await app.go('Images');
    const images = new ResourcesPage(page, 'images');
    const pause = images.row('localhost/porthole/pause:latest');
    await expect
      .poll(() => pause.allTextContents())
      .toEqual(expect.arrayContaining([expect.stringMatching(/\d+ pod sandbox(es)?/)]));
    expect(await pause.allTextContents()).not.toEqual(
      expect.arrayContaining([expect.stringContaining('unused')]),
    );
    await pause.first().click();
    await expect
      .poll(() => images.detailSection(/^Used by/).textContent())
      .toMatch(/pod sandbox(es)?: it is the image this node’s runtime runs every pod sandbox from/);
    await screenshot(page, 'first-hour-pause-image-in-use');
    await page.keyboard.press('Escape');
  });

  it.runIf(older !== undefined)(
    'lists the pods whose stats can\'t be read as rows with why, never "no pods"',
    async () => {
      const stats = new StatsPage(page);
      await stats.go();
      await stats.node(`lab ${(older as LabRuntime).id}`);
      await stats.show('Pods');
      const row = stats.row(lab.podName('batch'));
      await expect
        .poll(() => row.textContent(), { timeout: 20_000 })
        .toContain('It has no cgroup of its own: it was started without a cgroup parent.');
      expect(await row.textContent()).toContain('can’t be read');
      expect(await page.getByText(/No running pods/).count()).toBe(0);
    },
  );

  it.runIf(older !== undefined)(
    "gives a pod run from the template a cgroup of its own, in the form the node's driver wants, so its stats can be read",
    async () => {
      const other = older as LabRuntime;
      await app.go('Pods');
      const run = new RunSpecDialog(page);
      await run.open();
      await run.dialog
        .getByRole('combobox', { name: 'Node' })
        .selectOption({ label: `lab ${other.id}` });
      // containerd 1.6 has no RuntimeConfig: its configuration in the status says cgroupfs.
      await expect
        .poll(() => run.text())
        .toContain(`lab ${other.id}'s cgroupfs driver wants (runtime status says so)`);
      const template = await run.text();
      const parent = /cgroupParent: (\/porthole\/pod-[0-9a-f]{8})/.exec(template)?.[1];
      expect(parent).toBeDefined();
      cgroupParents.push(parent ?? '');
      // The template's pod, named and labelled for this run, with the cgroup parent it set.
      await run.replaceText(`pod:
  metadata:
    name: ${lab.podName('tmpl')}
  labels:
    e2e-run: "${lab.runId}"
  logDirectory: ${other.podLogDir}/e2e-${lab.runId}-tmpl
  linux:
    cgroupParent: ${parent ?? ''}
containers:
  - metadata:
      name: clock
    image:
      image: localhost/porthole/busybox:latest
    command: [sh, -c, 'while true; do date; sleep 5; done']
`);
      await expect.poll(() => run.status.textContent()).toContain('The spec is valid');
      await run.run();
      await app
        .toast(`Started ${lab.podName('tmpl')} with 1 container`)
        .waitFor({ timeout: 30_000 });
      const stats = new StatsPage(page);
      await stats.go();
      await stats.node(`lab ${other.id}`);
      await stats.show('Pods');
      await expect
        .poll(() => stats.memory(lab.podName('tmpl')), { timeout: 20_000 })
        .toMatch(/\d (B|KiB|MiB)$/);
    },
  );

  it('shows a failed run beside the step that failed, not in a toast', async () => {
    await app.go('Pods');
    const run = new RunSpecDialog(page);
    await run.open();
    const name = lab.podName('nopull');
    // Nothing listens on port 1: the pull fails at once, as an unreachable registry does.
    await run.replaceText(`pod:
  metadata:
    name: ${name}
  labels:
    e2e-run: "${lab.runId}"
containers:
  - metadata:
      name: app
    image:
      image: 127.0.0.1:1/porthole/missing:latest
`);
    await expect.poll(() => run.status.textContent()).toContain('The spec is valid');
    await run.run();
    const steps = run.dialog.getByRole('list', { name: 'Run steps' });
    await steps.waitFor({ timeout: 30_000 });
    const items = steps.getByRole('listitem');
    await expect.poll(() => items.nth(0).textContent()).toContain(`Start the pod ${name} (done)`);
    const failed = items.nth(1);
    expect(await failed.textContent()).toContain(
      'Pull 127.0.0.1:1/porthole/missing:latest for app',
    );
    expect(await failed.getByRole('alert').textContent()).toMatch(/Failed pulling .*: .+/);
    expect(await items.nth(2).textContent()).toContain('(not run)');
    expect(await run.status.textContent()).toContain('running it failed at the step marked below');
    expect(await run.status.textContent()).not.toContain('The spec is valid.');
    expect(await app.toast(/Could not run/).count()).toBe(0);
    await screenshot(page, 'first-hour-run-failed-step');
    await page.keyboard.press('Escape');
    await run.dialog.waitFor({ state: 'detached' });
    // Undone: no pod left behind.
    expect(await new ResourcesPage(page, 'pods').row(name).count()).toBe(0);
  });

  it('takes a "Could not connect" toast away once the node connects, and never stacks it', async () => {
    await app.go('Nodes');
    const nodes = new NodesPage(page);
    const late = join(scratch, 'late.sock');
    await nodes.addNode({ name: 'late node', endpoint: late });
    // Only the cards on screen are drawn: find it as a user would among many.
    const search = page.getByRole('searchbox', { name: 'Filter nodes' });
    await search.fill('late node');
    await nodes.card('late node').waitFor();
    await nodes.connect('late node');
    const toast = app.toast('Could not connect to late node');
    await toast.waitFor({ timeout: 30_000 });
    await nodes.connect('late node');
    await expect.poll(() => toast.textContent(), { timeout: 30_000 }).toContain('×2');
    expect(await toast.count()).toBe(1);
    // The runtime shows up where the node said it would be.
    symlinkSync(lab.runtime.socketPath, late);
    await nodes.connect('late node');
    await nodes.waitConnected('late node');
    await toast.waitFor({ state: 'detached' });
    const saved = (await core.services.nodes.list()).find((node) => node.name === 'late node');
    await core.services.nodes.removeProfile(saved?.nodeId ?? '');
    await search.fill('');
  });

  it('says a stopped container’s terminal was stopped, and offers what can be done', async () => {
    const victim = await lab.runPod('victim', { victim: ['sleep', '3600'] });
    await app.go('Containers');
    const containers = new ResourcesPage(page, 'containers');
    await containers.row(/^victim/).click();
    await containers.detailAction('Shell').click();
    const terminals = new TerminalPage(page);
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
    const pane = terminals.activePane;
    await terminals.waitForPrompt(pane);
    await lab.cri.stopContainer(victim.containerIds.victim ?? '', 0);
    const ended = terminals.ended(pane);
    await expect
      .poll(() => ended.textContent(), { timeout: 30_000 })
      .toContain('The container was stopped.');
    expect(await ended.textContent()).toContain('CRI can’t start a stopped container again');
    expect(await ended.textContent()).not.toContain('exited with code 137');
    expect(await ended.getByRole('button', { name: 'Reopen' }).count()).toBe(0);
    await screenshot(page, 'first-hour-terminal-container-stopped');
    await ended.getByRole('button', { name: 'Show the container' }).click();
    await expect
      .poll(() => containers.detail.getByRole('heading', { level: 2 }).textContent())
      .toBe('victim');
    await expect.poll(() => containers.detailSection('Status').textContent()).toContain('exited');
  });

  it('counts in words that agree with the number, and marks only the field that is wrong', async () => {
    await app.scope(`lab ${lab.runtime.id}`);
    await app.go('Pods');
    const pods = new ResourcesPage(page, 'pods');
    await pods.filter(webPod);
    // "1 pod" when it is the node's only pod, "1 of 3 pods" otherwise; never "1 pods".
    await expect.poll(() => pods.count.textContent()).toMatch(/^(1 pod|1 of ([02-9]|\d\d+) pods)$/);
    await pods.filter('');
    await app.scope('all');
    await pods.row(webPod).click();
    await pods.detailAction(/Forward port/).click();
    const dialog = new ForwardDialogPage(page);
    await dialog.dialog.waitFor();
    await dialog.podPort.fill('');
    await dialog.start();
    await expect.poll(() => dialog.podPort.getAttribute('aria-invalid')).toBe('true');
    // The local port is optional: an empty pod port is not its fault.
    expect(await dialog.localPort.getAttribute('aria-invalid')).toBe('false');
    await page.keyboard.press('Escape');
  });

  it('threw no error in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
