/**
 * Terminals as a user has them, against the real lab: the browser-mode host with the real
 * core, headless Chromium, busybox containers made for the run (labelled
 * `e2e-run=<run id>`, removed afterwards). Text is read from xterm's DOM rows; headless
 * Chromium's WebGL is a software rasteriser, so the app draws with the DOM renderer here.
 * Each test opens the terminals it needs; they are closed after it.
 *
 * Keys typed fast right after a prompt go to `cat`, not to the shell: busybox's ash (1.35)
 * asks the terminal where its cursor is after each prompt, and when the answer is
 * `ESC[1;5R` (its `/ # ` prompt on the first row, as after `clear`) it takes the answer
 * for the start of a Ctrl+arrow key and throws away whatever arrives in the next 50 ms
 * with it. Any terminal loses that key the same way; Porthole delivers it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import type { Host } from '../../electron/core/host';
import type { SessionSnapshot } from '../../shared/model';
import {
  busyboxContainerConfig,
  labRuntimes,
  uiRuntime,
  podSandboxConfig,
  type LabRuntime,
  createLabContainer,
} from '../support/lab';
import { percentile } from '../../scripts/bench/stats';
import { AppPage, PalettePage } from './pages/app-page';
import { NodesPage } from './pages/nodes-page';
import { ResourcesPage } from './pages/resources-page';
import { TerminalPage } from './pages/terminal-page';
import { screenshot } from './support/artifacts';
import { openApp, startBrowserHost, type OpenedApp } from './support/browser-app';
import { launchChromium } from './support/chromium';

const runId = Math.random().toString(36).slice(2, 8);
const runLabel = { 'e2e-run': runId };
const podName = `e2e-${runId}-term`;
const oldPodName = `e2e-${runId}-term16`;

const runtimes = labRuntimes();
const primary = uiRuntime();
const secondary = runtimes.find(
  (runtime) => runtime.id === 'containerd-1.6' && runtime !== primary,
);

const floodBytes = 50 * 1024 * 1024;
/** Set by the test once it has measured and the flood printed at least floodBytes. */
const floodStop = `/tmp/${runId}-flood-stop`;
// In pieces of 1 MiB until told to stop: it floods for as long as the test measures,
// however fast the machine, and stops soon after the 50 MB.
const floodCommand = `while [ ! -e ${floodStop} ]; do yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ | head -c 1048576; done; echo; echo FLOOD-$((40+2))-DONE`;
/** Typed at full speed where no key may go missing. */
const typedText = 'Pack my box with five dozen liquor jugs 0123456789';

interface ContainerSpec {
  readonly name: string;
  readonly command: readonly string[];
  readonly tty?: boolean;
  readonly stdin?: boolean;
}

const containers: readonly ContainerSpec[] = [
  { name: 'shell', command: ['sleep', '3600'] },
  {
    name: 'console',
    tty: true,
    command: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo "console tick $i"; sleep 1; done'],
  },
  {
    name: 'reader',
    stdin: true,
    command: ['sh', '-c', 'while read -r line; do echo "got: $line"; done'],
  },
  {
    name: 'noisy',
    command: ['sh', '-c', 'while true; do echo "to stdout"; echo "to stderr" >&2; sleep 1; done'],
  },
];

/** Runs the pod; its containers' ids by name. */
async function createPod(
  runtime: LabRuntime,
  name: string,
  specs: readonly ContainerSpec[],
): Promise<Record<string, string>> {
  const client = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  const ids: Record<string, string> = {};
  try {
    const config = podSandboxConfig(name, { runtime, labels: runLabel });
    const podId = await client.runPod(config);
    for (const spec of specs) {
      const id = await createLabContainer(
        client,
        podId,
        busyboxContainerConfig(spec.name, [...spec.command], {
          labels: runLabel,
          ...(spec.tty === true && { tty: true, stdin: true }),
          ...(spec.stdin === true && { stdin: true }),
        }),
        config,
      );
      await client.startContainer(id);
      ids[spec.name] = id;
    }
  } finally {
    client.dispose();
  }
  return ids;
}

async function removeRunPods(runtime: LabRuntime): Promise<void> {
  const client = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  try {
    for (const pod of await client.listPods({ labels: runLabel })) {
      await client.stopPod(pod.id).catch(() => undefined);
      await client.removePod(pod.id).catch(() => undefined);
    }
  } finally {
    client.dispose();
  }
}

/**
 * Keystroke to glyph on screen in pane `index`: each key's time from its keydown to the
 * cursor's row showing the line typed so far (a MutationObserver on xterm's rows),
 * measured in the page. The pane runs `cat`: the line is the tty's echo.
 */
async function installEchoProbe(page: Page, index: number): Promise<void> {
  await page.evaluate((paneIndex) => {
    const pane = document.querySelectorAll('section.term-pane')[paneIndex];
    const rows = pane?.querySelector('.xterm-rows');
    if (pane === undefined || rows === null || rows === undefined)
      throw new Error('no terminal rows');
    const probe = {
      typed: '',
      samples: [] as number[],
      pending: undefined as { text: string; at: number } | undefined,
    };
    const cursorRow = (): string => {
      const row = [...rows.children].find((child) => child.querySelector('.xterm-cursor'));
      return (row?.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd();
    };
    const check = (): void => {
      const pending = probe.pending;
      if (pending === undefined) return;
      if (cursorRow() === pending.text) {
        probe.samples.push(performance.now() - pending.at);
        probe.pending = undefined;
      }
    };
    document.addEventListener(
      'keydown',
      (event) => {
        // Only keys typed into this pane (the other pane gets the flood command).
        if (!(event.target instanceof Node) || !pane.contains(event.target)) return;
        if (event.key === 'Enter') probe.typed = ''; // a new line
        if (event.key.length !== 1 || event.ctrlKey || event.altKey || event.metaKey) return;
        probe.typed += event.key;
        probe.pending = { text: probe.typed, at: performance.now() };
      },
      true,
    );
    new MutationObserver(check).observe(rows, {
      childList: true,
      subtree: true,
      characterData: true,
    });
    (window as unknown as { echoProbe: typeof probe }).echoProbe = probe;
  }, index);
}

/** Types `keys` one by one, each after the previous one's echo; returns their times. */
async function measureEchoes(page: Page, keys: string): Promise<number[]> {
  const samples = (): Promise<number[]> =>
    page.evaluate(
      () => (window as unknown as { echoProbe: { samples: number[] } }).echoProbe.samples,
    );
  const before = (await samples()).length;
  for (const [index, key] of [...keys].entries()) {
    await page.keyboard.press(key);
    await page.waitForFunction(
      (count) =>
        (window as unknown as { echoProbe: { samples: number[] } }).echoProbe.samples.length >=
        count,
      before + index + 1,
      { timeout: 10_000, polling: 20 },
    );
  }
  return (await samples()).slice(before);
}

describe('Terminals in the browser, against the lab', () => {
  let configDir: string;
  let core: Core;
  let host: Host;
  let browser: Browser;
  let opened: OpenedApp;
  let page: Page;
  let app: AppPage;
  let terminals: TerminalPage;
  let cri: CriClient;
  let shellId = '';

  async function openFromContainer(name: string, action: 'Shell' | 'Attach'): Promise<void> {
    await app.go('Containers');
    const table = new ResourcesPage(page, 'containers');
    await table.filter(runId);
    await table.row(new RegExp(`^${name}`)).waitFor({ timeout: 20_000 });
    await table.open(new RegExp(`^${name}`));
    await table.detailAction(action).click();
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
  }

  /** The palette; in a terminal Ctrl+K belongs to the shell, so Ctrl+Shift+P opens it. */
  async function openPalette(): Promise<PalettePage> {
    const inTerminal = await page.evaluate(
      () => document.activeElement?.classList.contains('xterm-helper-textarea') === true,
    );
    await page.keyboard.press(inTerminal ? 'Control+Shift+P' : 'Control+k');
    const palette = new PalettePage(page);
    await palette.input.waitFor();
    return palette;
  }

  async function openPaletteFromTerminal(): Promise<PalettePage> {
    await terminals.focus(terminals.activePane);
    return openPalette();
  }

  /** A shell in the `shell` container, in a new tab, at its prompt: the active pane. */
  async function openShell(): Promise<Locator> {
    const count = await terminals.tabs.count();
    const palette = await openPalette();
    await palette.run(`Shell in shell (${podName})`);
    await expect.poll(() => terminals.tabs.count()).toBe(count + 1);
    const pane = terminals.activePane;
    await terminals.waitForPrompt(pane);
    return pane;
  }

  /** Runs `cat` in the pane: what is typed next is read by it, echoed by the tty. */
  async function runCat(pane: Locator): Promise<void> {
    await terminals.run(pane, 'cat');
    await terminals.waitForLine(pane, /# cat$/);
  }

  /** A file in the shell container that `cat > file` fills with what it reads. */
  let files = 0;
  const typedFile = (): string => `/tmp/${runId}-typed-${++files}`;

  /**
   * Every character typed arrived, in order: the file cat writes holds exactly `lines`.
   * Read from the process's side, not the screen: keys that arrive while the shell still
   * has the tty in raw mode are not echoed, and reach cat as a line of their own.
   */
  async function waitForTyped(file: string, lines: readonly string[]): Promise<void> {
    const read = async (): Promise<string> =>
      new TextDecoder().decode((await cri.execSync(shellId, ['cat', file], 10)).stdout);
    await expect.poll(read, { timeout: 20_000 }).toBe(lines.map((line) => `${line}\n`).join(''));
  }

  /** The PTY's size as `stty` reads it, asked until it is `rows cols` (resizes are async). */
  async function waitForSttySize(pane: Locator, rows: number, cols: number): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      await terminals.run(pane, `echo "size-${attempt} $(stty size)"`);
      const line = new RegExp(`^size-${attempt} (\\d+ \\d+)$`);
      await terminals.waitForLine(pane, line);
      const size = (await terminals.lines(pane)).map((text) => line.exec(text)?.[1]).find(Boolean);
      if (size === `${rows} ${cols}`) return;
      if (Date.now() - started > 20_000) throw new Error(`stty says ${size}, not ${rows} ${cols}`);
    }
  }

  /** Waits until `count` processes in the shell container run `command` (as `ps` shows). */
  async function waitForProcess(command: string, count = 1): Promise<void> {
    const running = async (): Promise<number> => {
      const ps = new TextDecoder().decode((await cri.execSync(shellId, ['ps'], 10)).stdout);
      return ps.split('\n').filter((line) => line.trimEnd().endsWith(` ${command}`)).length;
    };
    await expect.poll(running, { timeout: 20_000 }).toBeGreaterThanOrEqual(count);
  }

  /** The newest exec session the core has. */
  function newestExec(): SessionSnapshot | undefined {
    return core.sessions
      .list()
      .filter((session) => session.kind === 'exec')
      .sort((a, b) => b.startedAt - a.startedAt)[0];
  }

  beforeAll(async () => {
    cri = CriClient.create({ endpoint: primary.endpoint, timeoutMs: 30_000 });
    shellId = (await createPod(primary, podName, containers)).shell ?? '';
    if (secondary !== undefined)
      await createPod(secondary, oldPodName, [{ name: 'old-shell', command: ['sleep', '3600'] }]);
    configDir = mkdtempSync(join(tmpdir(), 'porthole-e2e-'));
    core = createCore({ configDir, env: { CONTAINER_RUNTIME_ENDPOINT: primary.endpoint } });
    await core.services.nodes.connect(`local:${primary.endpoint}`);
    host = await startBrowserHost(core.services, core.events);
    browser = await launchChromium();
    opened = await openApp(browser, host);
    page = opened.page;
    app = new AppPage(page);
    terminals = new TerminalPage(page);
    // The UI knows the containers before a test opens the palette: it lists the commands
    // of what it knows when it opens ("Shell in shell (…)").
    await app.go('Containers');
    const table = new ResourcesPage(page, 'containers');
    await table.filter(runId);
    await table.row(/^shell/).waitFor({ timeout: 30_000 });
  });

  afterEach(async () => {
    // The next test starts with no terminal, at the usual window size.
    if ((await page.getByRole('dialog').count()) > 0) await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1440, height: 900 });
    await terminals.go();
    await terminals.closeAllTabs();
    expect(opened.pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await opened?.close();
    await browser?.close();
    await host?.close();
    core?.dispose();
    cri?.dispose();
    for (const runtime of runtimes) await removeRunPods(runtime);
    if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
  });

  it("opens a shell from a container's actions and runs echo hi", async () => {
    await openFromContainer('shell', 'Shell');
    const pane = terminals.pane(0);
    await terminals.waitForPrompt(pane);
    await expect
      .poll(() => pane.getAttribute('aria-label'))
      .toMatch(/^Terminal shell › \S*(ash|sh)$/);
    await terminals.run(pane, 'echo hi');
    await terminals.waitForLine(pane, 'hi');
    await screenshot(page, 'terminal-live-shell');
    // The session monitor has it, live (earlier tests' sessions end as their panes close).
    await expect
      .poll(
        () =>
          core.sessions
            .list()
            .filter((session) => session.state === 'active' && session.kind === 'exec').length,
      )
      .toBe(1);
  });

  it('keeps stty size equal to the pane, also after the window is resized', async () => {
    const pane = await openShell();
    const before = await terminals.size(pane);
    await waitForSttySize(pane, before.rows, before.cols);
    expect(await pane.locator('.xterm-rows > div').count()).toBe(before.rows);

    await page.setViewportSize({ width: 1100, height: 640 });
    await expect.poll(async () => (await terminals.size(pane)).cols).toBeLessThan(before.cols);
    const after = await terminals.size(pane);
    expect(after.rows).toBeLessThan(before.rows);
    // The new size reaches the PTY after the resize debounce, on a stream of its own.
    await waitForSttySize(pane, after.rows, after.cols);
  });

  it('interrupts sleep 100 with Ctrl-C', async () => {
    const pane = await openShell();
    await terminals.run(pane, 'clear; sleep 100');
    await waitForProcess('sleep 100');
    await page.keyboard.press('Control+c');
    await terminals.waitForPrompt(pane);
    await terminals.run(pane, 'echo "status $?"');
    await terminals.waitForLine(pane, 'status 130');
  });

  it('shows exit code 3 when the shell exits, and reopens a new one', async () => {
    const pane = await openShell();
    await terminals.run(pane, 'exit 3');
    const ended = terminals.ended(pane);
    await ended.waitFor();
    await expect.poll(() => ended.textContent()).toContain('exited with code 3');
    await expect
      .poll(() => pane.locator('.term-dot').first().getAttribute('data-state'))
      .toBe('failed');
    await screenshot(page, 'terminal-ended-session');
    await expect.poll(() => newestExec()?.exitCode).toBe(3);

    await ended.getByRole('button', { name: 'Reopen' }).click();
    await ended.waitFor({ state: 'detached' });
    await terminals.waitForPrompt(pane);
    await terminals.run(pane, 'echo reopened');
    await terminals.waitForLine(pane, 'reopened');
  });

  it('splits the tab into two shells that work apart', async () => {
    const first = await openShell();
    await terminals.headerButton(first, 'Split right').click();
    await expect.poll(() => terminals.panes.count()).toBe(2);
    const second = terminals.pane(1);
    await expect.poll(() => second.getAttribute('data-active')).toBe('true');
    await terminals.waitForPrompt(second);
    await terminals.run(second, 'echo second pane');
    await terminals.waitForLine(second, 'second pane');
    const left = terminals.pane(0);
    expect(await terminals.lines(left)).not.toContain('second pane');
    await terminals.run(left, 'echo first pane');
    await terminals.waitForLine(left, 'first pane');
    expect(await terminals.lines(second)).not.toContain('first pane');
    // Focus moves with Alt+arrows.
    await page.keyboard.press('Alt+ArrowRight');
    await expect.poll(() => second.getAttribute('data-active')).toBe('true');
    await screenshot(page, 'terminal-split');
  });

  describe('typing at full speed into a freshly focused pane, no key lost', () => {
    it('right after a command', async () => {
      const pane = await openShell();
      const file = typedFile();
      // No wait between Enter and the next keys: they reach cat, or wait for it in the tty.
      await terminals.run(pane, `clear; cat > ${file}`);
      await page.keyboard.type(typedText);
      await page.keyboard.press('Enter');
      await waitForTyped(file, [typedText]);
    });

    it('right after a split, and in a new tab, while their shells start', async () => {
      const first = await openShell();
      await terminals.focus(first);
      await page.keyboard.press('Control+Shift+E');
      await page.keyboard.type(`echo split ${typedText}`);
      await page.keyboard.press('Enter');
      await expect.poll(() => terminals.panes.count()).toBe(2);
      await terminals.waitForLine(terminals.pane(1), `split ${typedText}`);
      expect(await terminals.lines(terminals.pane(0))).not.toContain(`split ${typedText}`);

      const palette = await openPalette();
      await palette.run(`Shell in shell (${podName})`);
      await page.keyboard.type(`echo tab ${typedText}`);
      await page.keyboard.press('Enter');
      await terminals.waitForLine(terminals.activePane, `tab ${typedText}`);
    });

    it('right after focusing a pane with the mouse or Alt+arrows', async () => {
      const first = await openShell();
      await terminals.headerButton(first, 'Split right').click();
      const [left, right] = [terminals.pane(0), terminals.pane(1)];
      await terminals.waitForPrompt(right);
      const [leftFile, rightFile] = [typedFile(), typedFile()];
      await terminals.run(left, `cat > ${leftFile}`);
      await terminals.run(right, `cat > ${rightFile}`);
      // Both read the tty (and so have it in cooked mode) before the keys come.
      await waitForProcess('cat', 2);
      // Focus is on the right pane: a click moves it left, Alt+→ back, Alt+← left again.
      await terminals.focus(left);
      await page.keyboard.type(`click ${typedText}`);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Alt+ArrowRight');
      await page.keyboard.type(`alt ${typedText}`);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Alt+ArrowLeft');
      await page.keyboard.type(`back ${typedText}`);
      await page.keyboard.press('Enter');
      await waitForTyped(leftFile, [`click ${typedText}`, `back ${typedText}`]);
      await waitForTyped(rightFile, [`alt ${typedText}`]);
    });

    it('right after coming back to the Terminals view', async () => {
      const pane = await openShell();
      const file = typedFile();
      await terminals.run(pane, `cat > ${file}`);
      await waitForProcess('cat');
      // With the keyboard (in a browser Alt+Shift+1 is Nodes, Alt+Shift+5 Terminals), then
      // with the sidebar.
      // Showing the view doesn't pull the focus into the pane (issue 21): it is on the
      // selected tab by the time the shortcut's key is up, so nothing typed next falls on
      // <body>. The user puts it in the pane, and types at once.
      await page.keyboard.press('Alt+Shift+Digit1');
      await page.getByRole('heading', { level: 1, name: 'Nodes' }).waitFor();
      await page.keyboard.press('Alt+Shift+Digit5');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('tab');
      await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
      await terminals.focus(pane);
      await page.keyboard.type(`keys ${typedText}`);
      await page.keyboard.press('Enter');
      await app.go('Nodes');
      await app.navLink('Terminals').click();
      await terminals.focus(pane);
      await page.keyboard.type(`sidebar ${typedText}`);
      await page.keyboard.press('Enter');
      await waitForTyped(file, [`keys ${typedText}`, `sidebar ${typedText}`]);
    });
  });

  it(
    'stays responsive while a shell prints 50 MB: echo in the other pane',
    { timeout: 240_000 },
    async () => {
      const first = await openShell();
      await terminals.headerButton(first, 'Split right').click();
      const [flooded, second] = [terminals.pane(0), terminals.pane(1)];
      await terminals.waitForPrompt(second);
      await runCat(second);
      await installEchoProbe(page, 1);
      // Echo with nothing else going on, for comparison.
      await terminals.focus(second);
      const idle = await measureEchoes(page, 'abcde');
      await page.keyboard.press('Enter');

      const sessionOf = (pane: 0 | 1): SessionSnapshot | undefined =>
        core.sessions
          .list()
          .filter((session) => session.kind === 'exec' && session.state === 'active')
          .sort((a, b) => a.startedAt - b.startedAt)[pane];
      await terminals.run(flooded, floodCommand);
      const floodStarted = Date.now();
      await terminals.waitForLine(flooded, /^0123456789abcdefghij/, 30_000);
      await terminals.focus(second);
      const during = await measureEchoes(page, 'fghijklmnopqrstuvwxy');
      // Measured while it floods: it stops only when told, after 50 MB at least.
      expect(await terminals.lines(flooded)).not.toContain('FLOOD-42-DONE');
      await expect
        .poll(() => sessionOf(0)?.bytesIn ?? 0, { timeout: 200_000, interval: 250 })
        .toBeGreaterThanOrEqual(floodBytes);
      await cri.execSync(shellId, ['touch', floodStop], 10);
      await terminals.waitForLine(flooded, 'FLOOD-42-DONE', 200_000);
      const seconds = (Date.now() - floodStarted) / 1000;
      const printed = sessionOf(0)?.bytesIn ?? 0;
      const heap = await page.evaluate(
        () =>
          (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory
            ?.usedJSHeapSize ?? 0,
      );
      console.log(
        `flood: ${(printed / 1e6 / seconds).toFixed(1)} MB/s (${(printed / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s); echo idle p50 ${percentile(idle, 50).toFixed(1)} ms; ` +
          `during the flood p50 ${percentile(during, 50).toFixed(1)} ms, max ${Math.max(...during).toFixed(1)} ms; heap ${(heap / 1e6).toFixed(0)} MB`,
      );
      // The flooded shell answers again.
      await terminals.run(flooded, 'echo after the flood');
      await terminals.waitForLine(flooded, 'after the flood');

      expect(during).toHaveLength(20);
      // Glyph on screen, keys sent by Playwright: every echo came back while the flood ran
      // (it stops only when told), so the pane was never frozen behind it. How fast is the
      // bench's (term_echo_during_flood_p99_ms). The bounds here are relative to the idle
      // echo measured on the same machine a moment before: under a load average of 22 on
      // two cores an absolute 250 ms p50 failed with 509 ms, with the pane answering.
      const idleP50 = percentile(idle, 50);
      expect(percentile(during, 50)).toBeLessThanOrEqual(Math.max(250, 20 * idleP50));
      expect(Math.max(...during)).toBeLessThan(Math.max(2000, 60 * idleP50));
      // Scrollback is bounded: 50 MB of output doesn't become 50 MB of page memory.
      expect(heap).toBeLessThan(300e6);
    },
  );

  it('finds text in the scrollback', async () => {
    const pane = await openShell();
    // The match scrolls out of view behind 200 more lines.
    await terminals.run(pane, 'echo "find-me-$((6*7))"; seq 200');
    await terminals.waitForLine(pane, '200');
    expect(await terminals.lines(pane)).not.toContain('find-me-42');
    await page.keyboard.press('Control+Shift+F');
    const find = pane.getByRole('search', { name: 'Find in the terminal' });
    await find.getByRole('searchbox', { name: 'Find' }).fill('find-me-42');
    await expect.poll(() => find.locator('.term-find-count').textContent()).toBe('1 of 1');
    await expect.poll(() => terminals.lines(pane)).toContain('find-me-42');
    await page.keyboard.press('Escape');
    await find.waitFor({ state: 'detached' });
  });

  it('copies with Ctrl+Shift+C, pastes with Ctrl+Shift+V and zooms with Ctrl+=', async () => {
    const first = await openShell();
    await terminals.run(first, 'clear; echo copy-me');
    await terminals.waitForLine(first, 'copy-me');
    const rows = await terminals.lines(first);
    const box = await first.locator('.xterm-rows > div').nth(rows.indexOf('copy-me')).boundingBox();
    if (box === null) throw new Error('the row is not on screen');
    // xterm selects on its screen layer above the rows: double-click a word there.
    await page.mouse.dblclick(box.x + 20, box.y + box.height / 2);
    await page.keyboard.press('Control+Shift+C');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('copy-me');
    await page.keyboard.type('echo pasted-');
    await page.keyboard.press('Control+Shift+V');
    await page.keyboard.press('Enter');
    await terminals.waitForLine(first, 'pasted-copy-me');

    const before = await terminals.size(first);
    await page.keyboard.press('Control+Equal');
    await expect.poll(async () => (await terminals.size(first)).cols).toBeLessThan(before.cols);
    await page.keyboard.press('Control+0');
    await expect.poll(async () => (await terminals.size(first)).cols).toBe(before.cols);
  });

  it('records a session to asciicast, downloads it and replays it', async () => {
    const pane = await openShell();
    await terminals.more(pane, 'Start recording');
    await pane.getByRole('button', { name: /^Recording/ }).waitFor();
    await terminals.run(pane, 'echo recorded line');
    await terminals.waitForLine(pane, 'recorded line');
    await terminals.more(pane, 'Stop recording');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      terminals.more(pane, 'Download recording (.cast)'),
    ]);
    expect(download.suggestedFilename()).toMatch(/^shell-.*\.cast$/);
    const text = readFileSync(await download.path(), 'utf8');
    const [header, ...events] = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const { cols, rows } = await terminals.size(pane);
    expect(header).toMatchObject({ version: 2, width: cols, height: rows });
    expect(events.map((event) => (event as [number, string, string])[2]).join('')).toContain(
      'recorded line',
    );

    await terminals.more(pane, 'Replay recording');
    await expect.poll(() => terminals.selectedTab.textContent()).toMatch(/^Replay/);
    const player = page.getByRole('region', { name: /^Replay / });
    await expect
      .poll(() => terminals.screen(player), { timeout: 15_000 })
      .toContain('recorded line');
    await player.getByRole('button', { name: 'Close replay' }).click();
  });

  it('attaches to a tty container and shows its output', async () => {
    await openFromContainer('console', 'Attach');
    const pane = terminals.activePane;
    await expect.poll(() => pane.getAttribute('aria-label')).toBe('Terminal console › attach');
    await terminals.waitForLine(pane, /^console tick \d+$/, 15_000);
    expect(await pane.locator('.badge', { hasText: 'no tty' }).count()).toBe(0);
  });

  it('shows stderr in red when the container has no tty', async () => {
    await openFromContainer('noisy', 'Attach');
    const pane = terminals.activePane;
    await pane.locator('.badge', { hasText: 'no tty' }).waitFor();
    await terminals.waitForLine(pane, 'to stderr', 15_000);
    const styles = await pane.evaluate((element) =>
      [...element.querySelectorAll('.xterm-rows span')].map((span) => ({
        text: span.textContent?.replace(/\u00a0/g, ' ').trim() ?? '',
        red: span.classList.contains('xterm-fg-1'),
      })),
    );
    expect(styles.filter((span) => span.text === 'to stderr').every((span) => span.red)).toBe(true);
    expect(styles.some((span) => span.text === 'to stdout' && span.red)).toBe(false);
  });

  it('edits lines locally for a container without a tty, and sends them whole', async () => {
    await openFromContainer('reader', 'Attach');
    const pane = terminals.activePane;
    await pane.locator('.badge', { hasText: 'no tty' }).waitFor();
    await terminals.focus(pane);
    await page.keyboard.type('hellp');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('o world');
    await page.keyboard.press('Enter');
    await terminals.waitForLine(pane, 'got: hello world', 15_000);
    expect(await terminals.lines(pane)).toContain('hello world'); // the local echo
  });

  it('opens a shell from the command palette', async () => {
    await openShell();
    // In a terminal Ctrl+K belongs to the shell (kill line); Ctrl+Shift+P opens the palette.
    const palette = await openPaletteFromTerminal();
    await palette.run(`Shell in shell (${podName})`);
    await expect.poll(() => terminals.tabs.count()).toBe(2);
    const pane = terminals.activePane;
    await terminals.waitForPrompt(pane);
    await terminals.run(pane, 'echo from the palette');
    await terminals.waitForLine(pane, 'from the palette');
  });

  it("follows the app's theme", async () => {
    const pane = await openShell();
    const foreground = (): Promise<string> =>
      pane.locator('.xterm-rows').evaluate((rows) => getComputedStyle(rows).color);
    const light = await foreground();
    let palette = await openPaletteFromTerminal();
    await palette.run('Theme: dark');
    await expect.poll(foreground).not.toBe(light);
    await screenshot(page, 'terminal-dark');
    palette = await openPaletteFromTerminal();
    await palette.run('Theme: follow the system');
    await expect.poll(foreground).toBe(light);
  });

  it('keeps terminals alive while other views are shown', async () => {
    const pane = await openShell();
    await terminals.run(pane, 'echo before leaving');
    await terminals.waitForLine(pane, 'before leaving');
    await app.go('Nodes');
    await terminals.go();
    expect(await terminals.tabs.count()).toBe(1);
    expect(await terminals.lines(pane)).toContain('before leaving');
    await terminals.run(pane, 'echo still here');
    await terminals.waitForLine(pane, 'still here');
  });

  it('draws with WebGL when asked, and falls back to the DOM when the context is lost', async () => {
    const first = await openShell();
    await page.getByRole('button', { name: 'Terminal settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Terminal settings' });
    await dialog.getByLabel('Drawing').selectOption('webgl');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => first.locator('.xterm-screen canvas').count()).toBeGreaterThan(0);
    await first.evaluate((element) => {
      for (const canvas of element.querySelectorAll('canvas')) {
        canvas.getContext('webgl2')?.getExtension('WEBGL_lose_context')?.loseContext();
      }
    });
    await first.getByText('The GPU context was lost').waitFor({ timeout: 15_000 });
    await terminals.run(first, 'echo drawn by the dom');
    await terminals.waitForLine(first, 'drawn by the dom');

    await page.getByRole('button', { name: 'Terminal settings' }).click();
    await dialog.getByLabel('Drawing').selectOption('auto');
    await dialog.getByRole('button', { name: 'Save' }).click();
  });

  it.runIf(secondary !== undefined)('opens a shell on containerd 1.6 too', async () => {
    const runtime = secondary as LabRuntime;
    await app.go('Nodes');
    await new NodesPage(page).addNode({ name: 'lab 1.6', endpoint: runtime.endpoint }, true);
    await new NodesPage(page).waitConnected('lab 1.6');
    await openFromContainer('old-shell', 'Shell');
    const pane = terminals.activePane;
    await terminals.waitForPrompt(pane);
    await terminals.run(pane, 'echo hi from 1.6');
    await terminals.waitForLine(pane, 'hi from 1.6');
  });

  it('ends the core session when its pane is closed', async () => {
    const first = await openShell();
    await terminals.headerButton(first, 'Split right').click();
    await terminals.waitForPrompt(terminals.pane(1));
    await openShell();
    const live = (): SessionSnapshot[] =>
      core.sessions
        .list()
        .filter((session) => session.state === 'active' || session.state === 'starting');
    await expect.poll(() => live().length).toBe(3);
    await terminals.closeAllTabs();
    await expect.poll(live).toEqual([]);
  });
});
