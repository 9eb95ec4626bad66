/**
 * The logs bench, through the whole app in browser mode (the real core, the real host,
 * headless Chromium), against a real lab container:
 *
 *   logs_1m_load_ms    a million-line log (~100 bytes a line, ~100 MB): from clicking
 *                      "Logs" on the container to its lines painted (the core finds the
 *                      file through the CRI, reads and indexes all of it, the renderer
 *                      fetches and draws the last window); median of 3
 *   logs_1m_search_ms  a search across it as a user makes it: from the last keystroke of
 *                      the query (debounce included) to its matches highlighted on
 *                      screen (the core searches, the list jumps to the match and draws
 *                      it); median over five queries, case-insensitive
 *   logs_merged_1m_load_ms  a pod of four containers whose logs total a million lines
 *                      (250,000 each, their times interleaved): from clicking "Logs (all
 *                      containers)" on the pod to the merged lines painted (the core
 *                      reads and indexes the four files and merges them by timestamp);
 *                      median of 3
 *
 * The log: a busybox container that prints one line and exits (so nothing else writes to
 * its file), whose CRI log file is then replaced by a generated million-line one: a
 * realistic mix (access logs, logfmt, JSON, klog errors on stderr, a few lines long
 * enough to be split into partial records). Porthole reads it exactly as it would read
 * the container's own output; only the content is made up. Generated once per run.
 *
 *   npx tsx scripts/bench/logs.ts [--runtime 1.6]   prints the results as JSON
 *
 * Targets: load ≤ 2 s, search ≤ 500 ms, merged load ≤ 2 s.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { createCore } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import {
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
  createLabContainer,
  matchesRuntime,
} from '../../test/support/lab';
import { openApp, startBrowserHost } from '../../test/e2e/support/browser-app';
import { launchChromium } from '../../test/e2e/support/chromium';
import { median, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

export const logsBenchTargets = {
  logs_1m_load_ms: 2000,
  logs_1m_search_ms: 500,
  logs_merged_1m_load_ms: 2000,
} as const;

const lineCount = 1_000_000;
/** Queries with matches spread over the log: rare, common, with digits, mixed case. */
const queries = ['TIMEOUT', 'get /api/v1/orders/1', 'slow query', 'ord-777777', 'kube-probe'];

const paths = ['/api/v1/orders', '/api/v1/users', '/healthz', '/api/v1/cart', '/metrics'];
const methods = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];
const statuses = [200, 200, 200, 200, 201, 204, 304, 404, 500, 503];

/** A deterministic pseudo-random sequence (the same log every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function pick<T>(values: readonly T[], next: () => number): T {
  return values[Math.floor(next() * values.length)] as T;
}

/** One message of the mix, ~60 bytes (the header makes the line ~100). */
function message(i: number, next: () => number): { stream: 'stdout' | 'stderr'; text: string } {
  const kind = next();
  if (kind < 0.45) {
    const path = `${pick(paths, next)}/${Math.floor(next() * 20_000)}`;
    const agent = next() < 0.2 ? 'kube-probe/1.29' : 'curl/8.5';
    return {
      stream: 'stdout',
      text: `10.0.${i % 256}.${Math.floor(next() * 255)} "${pick(methods, next)} ${path}" ${pick(statuses, next)} ${agent}`,
    };
  }
  if (kind < 0.75) {
    return {
      stream: 'stdout',
      text: `level=info msg="request done" user=${Math.floor(next() * 10_000)} took=${Math.floor(next() * 900)}ms`,
    };
  }
  if (kind < 0.9) {
    return {
      stream: 'stdout',
      text: `{"level":"warn","msg":"slow query","table":"orders","ms":${Math.floor(next() * 5000)}}`,
    };
  }
  const timeout = next() < 0.1 ? 'timeout' : 'connection refused';
  return {
    stream: 'stderr',
    text: `E0501 reflector.go:138] watch of *v1.Pod ended: ${timeout} (#${i})`,
  };
}

/** Go's RFC3339Nano: nanoseconds with trailing zeros trimmed. */
function timestamp(ms: number, nanos: number): string {
  const iso = new Date(ms).toISOString(); // 2024-05-01T12:00:00.123Z
  const fraction = `${iso.slice(20, 23)}${String(nanos).padStart(6, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction === '' ? '' : `.${fraction}`}Z`;
}

/**
 * Writes a CRI log of `lines` lines (the million by default); resolves to its size in
 * bytes. A merged pod's parts take a seed and a time offset each, so their lines
 * interleave in time as a pod's containers' do.
 */
async function generateLog(
  path: string,
  { lines = lineCount, seed = 42, offsetMs = 0, stepMs = 3.6 } = {},
): Promise<number> {
  const next = random(seed);
  const out = createWriteStream(path);
  const start = Date.UTC(2024, 4, 1, 12, 0, 0) + offsetMs;
  let batch: string[] = [];
  const flush = async (): Promise<void> => {
    const text = batch.join('');
    batch = [];
    if (!out.write(text)) await new Promise<void>((done) => out.once('drain', () => done()));
  };
  for (let i = 0; i < lines; i += 1) {
    const time = timestamp(start + Math.floor(i * stepMs), Math.floor(next() * 1_000_000));
    if (i === 777_777) {
      // One needle in the haystack: a single order's trouble.
      batch.push(`${time} stderr F level=error msg="payment declined" order=ORD-777777\n`);
    } else if (i % 50_000 === 49_999) {
      // A 40 KB line, written as the runtime splits it: two partial records and a full one.
      const long = `payload ${'x'.repeat(40_000)} end`;
      batch.push(`${time} stdout P ${long.slice(0, 16_384)}\n`);
      batch.push(`${time} stdout P ${long.slice(16_384, 32_768)}\n`);
      batch.push(`${time} stdout F ${long.slice(32_768)}\n`);
    } else {
      const { stream, text } = message(i, next);
      batch.push(`${time} ${stream} F ${text}\n`);
    }
    if (batch.length >= 10_000) await flush();
  }
  await flush();
  await new Promise<void>((done, fail) =>
    out.end((error?: Error | null) => (error ? fail(error) : done())),
  );
  return statSync(path).size;
}

/**
 * Resolves (to the time) once `check` holds and the frame showing it is painted; rejects
 * after 30 s.
 */
const paintedWhen = (check: string): string => `
  new Promise((resolve, reject) => {
    const test = () => ${check};
    const deadline = performance.now() + 30000;
    const poll = () => {
      if (performance.now() > deadline) {
        reject(new Error('not on screen after 30 s'));
      } else if (test()) {
        requestAnimationFrame(() => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => resolve(performance.now());
          channel.port2.postMessage(undefined);
        });
      } else {
        requestAnimationFrame(poll);
      }
    };
    poll();
  })`;

/**
 * Clicks the detail pane's button (a container's "Logs", a pod's "Logs (all
 * containers)"); resolves when lines (drawn with `part`: a merged log's have a container
 * column) are painted, with when the core's answer (the list, still empty) was first on
 * screen.
 */
async function measureLoad(
  page: Page,
  action = 'Logs',
  part = '.log-text',
): Promise<{ painted: number; opened: number }> {
  return page.evaluate(`(async () => {
    const button = [...document.querySelectorAll('.detail-actions button')].find(
      (element) => element.textContent.trim() === ${JSON.stringify(action)},
    );
    if (button === undefined) throw new Error(${JSON.stringify(`no "${action}" button`)});
    const started = performance.now();
    button.click();
    const opened = ${paintedWhen("document.querySelector('.log-scroller') !== null")};
    const painted = await ${paintedWhen(
      `document.querySelector('.log-line:not(.loading) ${part}') !== null && document.querySelector('.log-status') !== null`,
    )};
    return { painted: painted - started, opened: (await opened) - started };
  })()`);
}

/** A pod of four exited containers whose log files are the merged bench's four parts. */
async function mergedPod(
  cri: CriClient,
  parts: readonly string[],
  labels: Record<string, string>,
  runtime: LabRuntime,
): Promise<{ podId: string; logDirectory: string }> {
  const pod = podSandboxConfig('bench-logs-merged', { runtime, labels });
  const podId = await cri.runPod(pod);
  const ids: string[] = [];
  for (const [i] of parts.entries()) {
    const id = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig(`part-${i}`, ['sh', '-c', 'echo ready'], { labels }),
      pod,
    );
    await cri.startContainer(id);
    ids.push(id);
  }
  for (const [i, id] of ids.entries()) {
    for (let waited = 0; (await cri.containerStatus(id)).state !== 'exited'; waited += 1) {
      if (waited > 100) throw new Error('a merged bench container did not exit');
      await new Promise((done) => setTimeout(done, 100));
    }
    copyFileSync(parts[i] ?? '', (await cri.containerStatus(id)).logPath);
  }
  return { podId, logDirectory: pod.logDirectory };
}

/** Opens the merged pod's logs three times from its details; the load times. */
async function mergedLoads(page: Page, log: (line: string) => void): Promise<number[]> {
  const loads: number[] = [];
  for (let run = 0; run < 3; run += 1) {
    await page
      .getByRole('navigation', { name: 'Porthole' })
      .getByRole('button', { name: /^Pods/ })
      .click();
    await page.getByRole('searchbox', { name: 'Filter pods by text' }).fill('bench-logs-merged');
    await page
      .getByRole('grid', { name: 'Pods' })
      .locator('[role="row"][data-key]')
      .first()
      .dblclick();
    await page
      .locator('.detail-actions')
      .getByRole('button', { name: /^Logs \(all containers\)$/ })
      .waitFor();
    const { painted: ms } = await measureLoad(page, 'Logs (all containers)', '.log-source');
    const status = (await page.locator('.log-status').textContent()) ?? '';
    if (!status.includes('1,000,000 lines')) throw new Error(`the merged view says "${status}"`);
    loads.push(ms);
    log(`merged load ${run + 1}: ${ms.toFixed(0)} ms`);
  }
  return loads;
}

/**
 * Types `query` into the search box as a person does (clicking into it first, a key
 * every 80 ms), then waits for its matches highlighted on screen: the time from the last
 * keystroke (its keydown in the page) to the frame that shows them.
 */
async function measureSearch(page: Page, query: string): Promise<number> {
  const box = page.getByRole('searchbox', { name: 'Search the log' });
  await box.click();
  await page.keyboard.type(query.slice(0, -1), { delay: 80 });
  await page.evaluate(`(() => {
    window.__lastKeyAt = undefined;
    window.addEventListener('keydown', () => { window.__lastKeyAt = performance.now(); }, { once: true, capture: true });
  })()`);
  const highlighted = page.evaluate(`(async () => {
    const query = ${JSON.stringify(query)};
    const painted = await ${paintedWhen(`(() => {
      const current = document.querySelector('.log-line.current mark.log-mark');
      return current !== null && current.textContent.toLowerCase() === query.toLowerCase();
    })()`)};
    return painted - window.__lastKeyAt;
  })()`);
  await page.keyboard.press(query.slice(-1));
  return (await highlighted) as number;
}

async function clearSearch(page: Page): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search the log' }).fill('');
  await page.locator('mark.log-mark').first().waitFor({ state: 'detached' });
}

export async function runLogsBench(context: BenchContext): Promise<BenchFigure[]> {
  const { runtime, log } = context;
  const dir = mkdtempSync(join(tmpdir(), 'porthole-bench-logs-'));
  const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  const labels = { 'porthole.bench': 'logs' };
  const pod = podSandboxConfig('bench-logs', { runtime, labels });
  let podId = '';
  let merged: { podId: string; logDirectory: string } | undefined;
  const core = createCore({
    configDir: join(dir, 'config'),
    env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
  });
  const host = await startBrowserHost(core.services, core.events);
  const browser = await launchChromium();
  try {
    const generated = join(dir, 'million.log');
    const started = Date.now();
    const bytes = await generateLog(generated);
    log(
      `generated ${lineCount.toLocaleString('en-US')} lines, ${(bytes / 1e6).toFixed(1)} MB in ${Date.now() - started} ms`,
    );

    podId = await cri.runPod(pod);
    const containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('million', ['sh', '-c', 'echo ready'], { labels }),
      pod,
    );
    await cri.startContainer(containerId);
    for (let waited = 0; (await cri.containerStatus(containerId)).state !== 'exited'; waited += 1) {
      if (waited > 100) throw new Error('the bench container did not exit');
      await new Promise((done) => setTimeout(done, 100));
    }
    const logPath = (await cri.containerStatus(containerId)).logPath;
    copyFileSync(generated, logPath);
    const parts = [0, 1, 2, 3].map((i) => join(dir, `part-${i}.log`));
    for (const [i, part] of parts.entries()) {
      await generateLog(part, { lines: lineCount / 4, seed: 7 + i, offsetMs: i, stepMs: 14.4 });
    }
    merged = await mergedPod(cri, parts, labels, runtime);

    await core.services.nodes.connect(`local:${runtime.endpoint}`);
    const opened = await openApp(browser, host);
    const page = opened.page;
    try {
      // The whole file, not the default tail.
      await page
        .getByRole('navigation', { name: 'Porthole' })
        .getByRole('button', { name: /^Logs/ })
        .click();
      await page.getByRole('combobox', { name: 'Lines' }).selectOption({ label: 'Whole file' });

      const loads: number[] = [];
      for (let run = 0; run < 3; run += 1) {
        await page
          .getByRole('navigation', { name: 'Porthole' })
          .getByRole('button', { name: /^Containers/ })
          .click();
        const filter = page.getByRole('searchbox', { name: 'Filter containers by text' });
        await filter.fill('million');
        await page
          .getByRole('grid', { name: 'Containers' })
          .locator('[role="row"][data-key]')
          .first()
          .dblclick();
        await page
          .locator('.detail-actions')
          .getByRole('button', { name: /^Logs$/ })
          .waitFor();
        const { painted: ms, opened: openedAt } = await measureLoad(page);
        const status = (await page.locator('.log-status').textContent()) ?? '';
        if (!status.includes('1,000,000 lines')) throw new Error(`the log view says "${status}"`);
        loads.push(ms);
        log(
          `load ${run + 1}: ${ms.toFixed(0)} ms (the list on screen after ${openedAt.toFixed(0)} ms)`,
        );
      }

      const searches: number[] = [];
      for (const query of queries) {
        const ms = await measureSearch(page, query);
        searches.push(ms);
        const status = await page.locator('.log-search-status').textContent();
        log(`search "${query}": ${ms.toFixed(0)} ms (${status ?? ''})`);
        await clearSearch(page);
      }
      const mergedLoadTimes = await mergedLoads(page, log);
      // Not a figure of the issue's, but "the million-line figures must hold": logged.
      const mergedSearches: number[] = [];
      // The needle is in the single log only: the parts are shorter.
      for (const query of queries.filter((q) => q !== 'ord-777777')) {
        mergedSearches.push(await measureSearch(page, query));
        await clearSearch(page);
      }
      log(
        `merged search: median ${median(mergedSearches).toFixed(0)} ms over ${mergedSearches.length} queries`,
      );
      if (opened.pageErrors.length > 0)
        throw new Error(`page errors: ${opened.pageErrors.join('; ')}`);
      return [
        {
          name: 'logs_1m_load_ms',
          value: round(median(loads), 0),
          unit: 'ms',
          target: { op: '<=', value: logsBenchTargets.logs_1m_load_ms },
        },
        {
          name: 'logs_1m_search_ms',
          value: round(median(searches), 0),
          unit: 'ms',
          target: { op: '<=', value: logsBenchTargets.logs_1m_search_ms },
        },
        {
          name: 'logs_merged_1m_load_ms',
          value: round(median(mergedLoadTimes), 0),
          unit: 'ms',
          target: { op: '<=', value: logsBenchTargets.logs_merged_1m_load_ms },
        },
      ];
    } finally {
      await opened.close();
    }
  } finally {
    await browser.close();
    await host.close();
    core.dispose();
    if (podId !== '') {
      await cri.stopPod(podId).catch(() => undefined);
      await cri.removePod(podId).catch(() => undefined);
    }
    if (merged !== undefined) {
      await cri.stopPod(merged.podId).catch(() => undefined);
      await cri.removePod(merged.podId).catch(() => undefined);
      rmSync(merged.logDirectory, { recursive: true, force: true });
    }
    rmSync(pod.logDirectory, { recursive: true, force: true });
    cri.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const logsBench: BenchModule = { name: 'logs', run: runLogsBench };

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const wanted = process.argv.includes('--runtime')
    ? process.argv[process.argv.indexOf('--runtime') + 1]
    : undefined;
  const runtimes = labRuntimes();
  const runtime: LabRuntime | undefined =
    wanted === undefined
      ? runtimes[runtimes.length - 1]
      : runtimes.find((r) => matchesRuntime(r, wanted));
  if (runtime === undefined) throw new Error(`No lab runtime ${wanted ?? ''}`);
  runLogsBench({ runtime, log: (line) => process.stderr.write(`${line}\n`) }).then(
    (figures) => {
      process.stdout.write(
        `${JSON.stringify(Object.fromEntries(figures.map((f) => [f.name, f.value])), null, 2)}\n`,
      );
      process.stderr.write(
        `load average: ${loadavg()
          .map((n) => n.toFixed(1))
          .join(' ')}\n`,
      );
    },
    (error: unknown) => {
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
