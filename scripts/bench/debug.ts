/**
 * The debug bench: Porthole in browser mode (the real host and core, the production
 * renderer), headless Chromium, a pod on the lab node whose container runs the pause image
 * (no shell), the toolbox image present on the node:
 *
 *   debug_open_ms      the Debug dialog's Debug button clicked to a prompt in the debug
 *                      pane (CreateContainer, StartContainer, the TARGET check, the shell
 *                      probe, Exec, the first output drawn), median of 5
 *   debug_open_p90_ms  the 90th percentile of the same runs
 *
 * Target (issue 18): debug_open ≤ 1.5 s. Timed from the test's side of Playwright: the
 * click and the check of xterm's DOM rows each add a few milliseconds.
 *
 *   npm run bench -- --only debug        (or: tsx scripts/bench/debug.ts [--runtime 1.6])
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { createCore } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import { openApp, startBrowserHost } from '../../test/e2e/support/browser-app';
import { launchChromium } from '../../test/e2e/support/chromium';
import { TerminalPage } from '../../test/e2e/pages/terminal-page';
import {
  busyboxContainerConfig,
  createLabContainer,
  LAB_IMAGES,
  labRuntimes,
  matchesRuntime,
  podSandboxConfig,
  type LabRuntime,
  removeLabelledPods,
} from '../../test/support/lab';
import { percentile, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

const label = { 'porthole-bench': 'debug' };
const runs = 5;

export const debugBenchTargets = { debug_open_ms: 1500, debug_open_p90_ms: undefined } as const;
type Figure = keyof typeof debugBenchTargets;

/** Whether the active pane's last non-empty row is a shell prompt. */
function promptShown(page: Page): Promise<unknown> {
  return page.waitForFunction(
    () => {
      const pane = document.querySelector('section.term-pane[data-active="true"]');
      const rows = [...(pane?.querySelectorAll('.xterm-rows > div') ?? [])]
        .map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd())
        .filter((text) => text !== '');
      return rows.length > 1 && /[#$] ?$/.test(rows[rows.length - 1] ?? '');
    },
    undefined,
    { timeout: 30_000, polling: 'raf' },
  );
}

export async function runDebugBench(
  runtime: LabRuntime,
  log: (line: string) => void = () => undefined,
): Promise<Record<Figure, number>> {
  const configDir = mkdtempSync(join(tmpdir(), 'porthole-bench-debug-'));
  const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  const cleanups: (() => Promise<void> | void)[] = [
    () => rmSync(configDir, { recursive: true, force: true }),
    () => cri.dispose(),
    () => removeLabelledPods(cri, label),
  ];
  try {
    await removeLabelledPods(cri, label);
    const config = podSandboxConfig('bench-debug', { runtime, labels: label });
    const podId = await cri.runPod(config);
    const target = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('bench-no-shell', [], { image: LAB_IMAGES.pause, labels: label }),
      config,
    );
    await cri.startContainer(target);
    const nodeId = `local:${runtime.endpoint}`;
    const core = createCore({
      configDir,
      env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(configDir, 'x') },
      logFile: false,
    });
    cleanups.push(() => core.dispose());
    await core.services.nodes.connect(nodeId);
    const host = await startBrowserHost(core.services, core.events);
    cleanups.push(() => host.close());
    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const { page } = await openApp(browser, host);

    await page
      .getByRole('navigation', { name: 'Porthole' })
      .getByRole('button', { name: /^Containers/ })
      .click();
    await page.getByRole('searchbox', { name: 'Filter containers by text' }).fill('bench-no-shell');
    await page
      .getByRole('grid', { name: 'Containers' })
      .locator('[role="row"][data-key]')
      .first()
      .click();
    await page.keyboard.press('Enter');
    const detail = page.getByRole('complementary', { name: 'Container details' });
    const times: number[] = [];
    for (let run = 0; run <= runs; run++) {
      await detail.locator('.detail-actions').getByRole('button', { name: 'Debug…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Debug bench-no-shell' });
      await dialog.getByRole('textbox', { name: 'Toolbox image' }).fill(LAB_IMAGES.busybox);
      const started = performance.now();
      await dialog.getByRole('button', { name: 'Debug', exact: true }).click();
      await promptShown(page);
      const took = performance.now() - started;
      // The first run warms the page, the core and the runtime's caches: not counted.
      if (run > 0) times.push(took);
      log(`debug open ${run === 0 ? '(warm-up) ' : ''}${round(took)} ms`);
      await new TerminalPage(page).closeAllTabs();
      // Back to the target for the next run; its debug container goes by itself.
      await page
        .getByRole('navigation', { name: 'Porthole' })
        .getByRole('button', { name: /^Containers/ })
        .click();
      await detail.waitFor();
    }
    return {
      debug_open_ms: round(percentile(times, 50)),
      debug_open_p90_ms: round(percentile(times, 90)),
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

export const debugBench: BenchModule = {
  name: 'debug',
  async run(context: BenchContext): Promise<readonly BenchFigure[]> {
    const results = await runDebugBench(context.runtime, context.log);
    return Object.entries(results).map(([name, value]) => {
      const target = debugBenchTargets[name as Figure];
      return {
        name,
        value,
        unit: 'ms',
        ...(target !== undefined && { target: { op: '<=' as const, value: target } }),
      };
    });
  },
};

// `tsx scripts/bench/debug.ts [--runtime 1.6]`
if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const index = process.argv.indexOf('--runtime');
  const wanted = index >= 0 ? process.argv[index + 1] : '2';
  const runtime = labRuntimes().find((r) => matchesRuntime(r, wanted));
  if (runtime === undefined) throw new Error(`No lab runtime ${wanted}.`);
  console.log(JSON.stringify(await runDebugBench(runtime, console.log), null, 2));
}
