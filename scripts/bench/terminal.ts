/**
 * The terminal bench: Porthole in browser mode (the real host and core, the production
 * renderer built with the terminal debug handle), headless Chromium, a busybox shell on
 * the lab node (MB = 10^6 bytes):
 *
 *   term_flood_mbps                 50 MiB of `yes` lines from the shell, Enter to the
 *                                   last line parsed in xterm's buffer (core, WebSocket,
 *                                   renderer, flow control, xterm: the whole app)
 *   term_echo_p50_ms / _p99_ms      a keystroke (xterm input, as typing produces it) to its
 *                                   echo in the terminal buffer, 200 keys, shell idle
 *   term_echo_during_flood_p99_ms   the same in a second pane while the first one floods
 *   term_flood_raw_mbps             the same 50 MiB (the lines as the PTY sends them) written
 *                                   straight into an xterm made like the pane's, in the same
 *                                   page, nothing of Porthole in between: the limit
 *   term_flood_vs_raw               term_flood_mbps / term_flood_raw_mbps
 *   term_transport_mbps             the same 50 MiB `cat` on a tty through the core and the
 *                                   page's WebSocket into the page's client, acknowledged as
 *                                   it arrives and never drawn: everything but xterm, so
 *   term_transport_vs_raw           (it / term_flood_raw_mbps) is the flood's ceiling on
 *                                   this machine, the container runtime's tty path included
 *   term_msgs_per_keystroke         messages across the WebSocket per echoed key, counted
 *                                   during the idle echo run: the terminal's frames (binary:
 *                                   input and output) and its acknowledgements
 *
 * Targets (issue 16): flood ≥ 0.8 of raw xterm, echo p99 ≤ 5 ms idle and ≤ 30 ms during a
 * flood in the other pane, at most 2 messages per keystroke.
 *
 *   npm run bench -- --only terminal        (or: tsx scripts/bench/terminal.ts [--runtime 1.6])
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'vite';
import { createCore } from '../../electron/core/composition';
import { terminalFlow } from '../../shared/model';
import { CriClient } from '../../electron/core/base/cri';
import { startHost } from '../../electron/core/host';
import {
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
  createLabContainer,
  matchesRuntime,
} from '../../test/support/lab';
import { rendererConfig } from '../build';
import { DevtoolsPage } from './devtools-page';
// The page's `window.portholeTerminalDebug`, declared by the renderer.
import type {} from '../../renderer/src/features/terminal/debug';
import { percentile, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

const floodBytes = 50 * 1024 * 1024;
/** Where the container keeps the flood's text (see startContainer). */
const floodFile = '/tmp/porthole-flood.txt';
const echoKeys = 200;
const label = { 'porthole-bench': 'terminal' };

export const terminalBenchTargets = {
  term_flood_mbps: 10,
  term_flood_raw_mbps: undefined,
  term_flood_vs_raw: 0.8,
  term_transport_mbps: undefined,
  term_transport_vs_raw: undefined,
  term_echo_p50_ms: 5,
  term_echo_p99_ms: 5,
  term_echo_during_flood_p99_ms: 30,
  term_msgs_per_keystroke: 2,
} as const;

type Figure = keyof typeof terminalBenchTargets;

/** Lower is better for these (a ceiling); the others are floors. */
const ceilings: ReadonlySet<Figure> = new Set([
  'term_echo_p50_ms',
  'term_echo_p99_ms',
  'term_echo_during_flood_p99_ms',
  'term_msgs_per_keystroke',
]);

const floodLine = '0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The production renderer, plus the window handle the measurements read (debug.ts). */
async function buildRenderer(outDir: string): Promise<void> {
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    const config = rendererConfig();
    await build({
      ...config,
      logLevel: 'error',
      define: { ...config.define, __PORTHOLE_TERMINAL_DEBUG__: 'true' },
      build: { ...config.build, outDir },
    });
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

async function startContainer(runtime: LabRuntime): Promise<() => Promise<void>> {
  const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  const removeAll = async (): Promise<void> => {
    for (const pod of await cri.listPods({ labels: label })) {
      await cri.stopPod(pod.id).catch(() => undefined);
      await cri.removePod(pod.id).catch(() => undefined);
    }
  };
  await removeAll();
  const config = podSandboxConfig('bench-terminal', { runtime, labels: label });
  const podId = await cri.runPod(config);
  const id = await createLabContainer(
    cri,
    podId,
    busyboxContainerConfig('bench-shell', ['sleep', '3600'], { labels: label }),
    config,
  );
  await cri.startContainer(id);
  // The flood's text is prepared before anything is timed: `cat` of a file measures
  // Porthole, where `yes | head` through a pipe would measure busybox (5–7 MB/s here).
  const prepared = await cri.execSync(
    id,
    ['sh', '-c', `yes ${floodLine} | head -c ${floodBytes} > ${floodFile}`],
    60,
  );
  if (prepared.exitCode !== 0)
    throw new Error('Could not prepare the flood file in the container.');
  return async () => {
    await removeAll();
    cri.dispose();
  };
}

/**
 * Clicks the first element matching `selector` (inside one whose text holds `within`, if
 * given) whose text starts with `text`, once there is one.
 */
async function clickText(
  page: DevtoolsPage,
  selector: string,
  text: string,
  within?: { readonly selector: string; readonly text: string },
): Promise<void> {
  await page.waitFor(
    (want) => {
      const roots =
        want.within === undefined
          ? [document.body]
          : [...document.querySelectorAll<HTMLElement>(want.within.selector)].filter((root) =>
              (root.textContent ?? '').includes(want.within!.text),
            );
      const found = roots
        .flatMap((root) => [...root.querySelectorAll<HTMLElement>(want.selector)])
        .find((element) => (element.textContent ?? '').trim().startsWith(want.text));
      found?.focus();
      found?.click();
      return found !== undefined;
    },
    { selector, text, within },
    30_000,
  );
}

/** Connects the lab node and opens a shell from the container's detail pane. */
async function openShell(page: DevtoolsPage, endpoint: string): Promise<void> {
  const card = { selector: 'article', text: endpoint };
  await clickText(page, 'button', 'Connect', card);
  await page.waitFor(
    (at) =>
      [...document.querySelectorAll('article')].some(
        (root) =>
          (root.textContent ?? '').includes(at) &&
          [...root.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Disconnect'),
      ),
    endpoint,
    30_000,
  );
  await clickText(page, 'nav[aria-label="Porthole"] button', 'Containers');
  await page.evaluate((name) => {
    const search = document.querySelector<HTMLInputElement>(
      'input[aria-label="Filter containers by text"]',
    );
    if (search === null) throw new Error('no container filter');
    // As typing does: React reads the value the input event carries.
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(search, name);
    search.dispatchEvent(new Event('input', { bubbles: true }));
  }, 'bench-shell');
  await page.waitFor(
    () => {
      const row = document.querySelector<HTMLElement>('[role="grid"] [role="row"][data-key]');
      if (row === null || !(row.textContent ?? '').includes('bench-shell')) return false;
      row.click();
      row.focus();
      row.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      return true;
    },
    undefined,
    30_000,
  );
  await clickText(page, '.detail-actions button', 'Shell');
}

/** Waits until terminal `index` shows a shell prompt on its cursor line. */
async function waitForPrompt(page: DevtoolsPage, index: number): Promise<void> {
  await page.waitFor(
    (at) => {
      const term = window.portholeTerminalDebug?.terminals()[at]?.term;
      if (term === undefined) return false;
      const buffer = term.buffer.active;
      const line = buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) ?? '';
      return /[#$] ?$/.test(line);
    },
    index,
    30_000,
  );
}

/** Keystroke → echo in the buffer, `count` keys typed into terminal `index`. */
async function echoTimes(page: DevtoolsPage, index: number, count: number): Promise<number[]> {
  return page.evaluate(
    async ({ at, keys }) => {
      const term = window.portholeTerminalDebug?.terminals()[at]?.term;
      if (term === undefined) throw new Error(`no terminal ${at}`);
      const echo = (char: string): Promise<number> =>
        new Promise((done, fail) => {
          const started = performance.now();
          const timer = setTimeout(() => fail(new Error(`no echo of ${char} in 10 s`)), 10_000);
          const listener = term.onWriteParsed(() => {
            const buffer = term.buffer.active;
            const cell = buffer.getLine(buffer.baseY + buffer.cursorY)?.getCell(buffer.cursorX - 1);
            if (cell?.getChars() !== char) return;
            clearTimeout(timer);
            listener.dispose();
            done(performance.now() - started);
          });
          term.input(char, true);
        });
      const times: number[] = [];
      for (let key = 0; key < keys; key += 1) {
        times.push(await echo(String.fromCharCode(97 + (key % 26))));
        // A new line now and then (Ctrl-U clears it) so the line never wraps.
        if (key % 40 === 39) term.input('\x15', true);
        await new Promise((wait) => setTimeout(wait, 10));
      }
      term.input('\x15', true);
      return times;
    },
    { at: index, keys: count },
  );
}

/**
 * The flood's bytes as the PTY delivers them (each line ending in CR LF), written straight
 * into a twin of terminal `index` in pieces as the core sends them (64 KiB), at most 1 MiB
 * waiting in xterm at a time; seconds from the first write to the last one parsed.
 */
async function rawFlood(page: DevtoolsPage, index: number): Promise<number> {
  return page.evaluate(
    async ({ at, bytes, line }) => {
      const entry = window.portholeTerminalDebug?.terminals()[at];
      if (entry === undefined) throw new Error(`no terminal ${at}`);
      const twin = entry.twin();
      try {
        const text = `${line}\r\n`;
        const piece = new TextEncoder().encode(text.repeat(Math.ceil(65536 / text.length)));
        const total = Math.ceil((bytes / (line.length + 1)) * text.length);
        let written = 0;
        let parsed = 0;
        const started = performance.now();
        await new Promise<void>((resolve) => {
          const pump = (): void => {
            while (written < total && written - parsed < 1024 * 1024) {
              const chunk = piece.subarray(0, Math.min(piece.length, total - written));
              written += chunk.length;
              twin.term.write(chunk, () => {
                parsed += chunk.length;
                if (parsed >= total) resolve();
                else pump();
              });
            }
          };
          pump();
        });
        return (performance.now() - started) / 1000;
      } finally {
        twin.dispose();
      }
    },
    { at: index, bytes: floodBytes, line: floodLine },
  );
}

/**
 * Before the page's own scripts: tsx compiles with keepNames, so functions sent to the page
 * call its __name helper; and the terminal's messages on the page's WebSocket are counted,
 * binary frames (input and output carry bytes; nothing else does) and acknowledgements,
 * each way.
 */
const initScript = `
window.__name = (fn) => fn;
window.portholeBenchFrames = 0;
const counted = (data, pattern) => typeof data !== 'string' || pattern.test(data);
window.WebSocket = class extends window.WebSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', (event) => {
      if (counted(event.data, /"type":"received"/)) window.portholeBenchFrames += 1;
    });
  }
  send(data) {
    if (counted(data, /"method":"ack"/)) window.portholeBenchFrames += 1;
    super.send(data);
  }
};`;

function terminalFrames(page: DevtoolsPage): Promise<number> {
  return page.evaluate(
    () => (window as unknown as { portholeBenchFrames: number }).portholeBenchFrames,
    undefined,
  );
}

/**
 * Opens a terminal of the bench's own from the page's client (`cat` of the flood file on a
 * tty, in the container of terminal `index`) and acknowledges each batch as it arrives, as
 * a pane does once drawn; seconds from the open to the last byte.
 */
async function transportFlood(page: DevtoolsPage, index: number): Promise<number> {
  return page.evaluate(
    async ({ at, bytes, file, batch }) => {
      const debug = window.portholeTerminalDebug;
      const entry = debug?.terminals()[at];
      if (debug === undefined || entry === undefined) throw new Error(`no terminal ${at}`);
      const { client } = debug;
      const started = performance.now();
      const info = await client.services.terminals.open({
        nodeId: entry.nodeId,
        containerId: entry.containerId,
        kind: 'exec',
        command: ['cat', file],
        cols: entry.term.cols,
        rows: entry.term.rows,
      });
      if (!info.tty) throw new Error('the flood needs a tty');
      let received = 0;
      let unacknowledged = 0;
      let last = started;
      await new Promise<void>((resolve, reject) => {
        const subscription = client.subscribe(
          'terminal',
          { terminalId: info.terminalId },
          (event) => {
            if (event.type === 'output') {
              received += event.data.length;
              unacknowledged += event.data.length;
              last = performance.now();
              if (unacknowledged >= batch) {
                client.notify.terminals.ack(info.terminalId, unacknowledged);
                unacknowledged = 0;
              }
            } else if (event.type === 'exit') {
              subscription.dispose();
              // The tty turns each LF into CR LF: at least the file's bytes arrive.
              if (received < bytes) reject(new Error(`only ${received} bytes arrived`));
              else resolve();
            }
          },
          reject,
        );
      });
      return (last - started) / 1000;
    },
    { at: index, bytes: floodBytes, file: floodFile, batch: terminalFlow.ackBatchBytes },
  );
}

interface FloodResult {
  readonly seconds: number;
  readonly echoes: number[];
}

/**
 * Floods terminal `flooder` and types into terminal `typist` meanwhile, a key every
 * 50 ms, until the flood's end marker is parsed.
 */
async function flood(
  page: DevtoolsPage,
  flooder: number,
  typist: number | undefined,
): Promise<FloodResult> {
  return page.evaluate(
    async ({ from, to, bytes, file }) => {
      const terminals = window.portholeTerminalDebug?.terminals() ?? [];
      const flooding = terminals[from];
      const typing = to === undefined ? undefined : terminals[to]?.term;
      if (flooding === undefined) throw new Error('no terminal to flood');
      const term = flooding.term;
      const marker = 'FLOOD-42-DONE';
      const startBytes = flooding.bytesReceived();
      const done = new Promise<number>((resolve) => {
        const listener = term.onWriteParsed(() => {
          // Cheap until the bytes are all there; then look for the marker line.
          if (flooding.bytesReceived() - startBytes < bytes) return;
          const buffer = term.buffer.active;
          for (
            let row = buffer.baseY + buffer.cursorY;
            row >= Math.max(0, buffer.baseY + buffer.cursorY - 3);
            row -= 1
          ) {
            if (buffer.getLine(row)?.translateToString(true) === marker) {
              listener.dispose();
              resolve(performance.now());
              return;
            }
          }
        });
      });
      const started = performance.now();
      term.input(`cat ${file}; echo; echo FLOOD-$((40+2))-DONE\r`, true);
      let finished = false;
      const ended = done.then((at) => {
        finished = true;
        return at;
      });
      const echoes: number[] = [];
      let key = 0;
      // Wait for the flood to be under way, then type while it lasts.
      while (!finished && flooding.bytesReceived() - startBytes < 1024 * 1024) {
        await new Promise((wait) => setTimeout(wait, 20));
      }
      while (!finished && typing !== undefined) {
        const char = String.fromCharCode(97 + (key % 26));
        key += 1;
        const echoed = new Promise<number>((resolve) => {
          const t0 = performance.now();
          const listener = typing.onWriteParsed(() => {
            const buffer = typing.buffer.active;
            const cell = buffer.getLine(buffer.baseY + buffer.cursorY)?.getCell(buffer.cursorX - 1);
            if (cell?.getChars() !== char) return;
            listener.dispose();
            resolve(performance.now() - t0);
          });
          typing.input(char, true);
        });
        echoes.push(await echoed);
        if (key % 40 === 0) typing.input('\x15', true);
        await new Promise((wait) => setTimeout(wait, 50));
      }
      typing?.input('\x15', true);
      return { seconds: ((await ended) - started) / 1000, echoes };
    },
    { from: flooder, to: typist, bytes: floodBytes, file: floodFile },
  );
}

export async function runTerminalBench(
  runtime: LabRuntime,
  log: (line: string) => void = () => undefined,
): Promise<Record<Figure, number>> {
  const outDir = mkdtempSync(join(tmpdir(), 'porthole-bench-terminal-'));
  const configDir = mkdtempSync(join(tmpdir(), 'porthole-bench-config-'));
  const cleanups: (() => Promise<void> | void)[] = [
    () => rmSync(outDir, { recursive: true, force: true }),
    () => rmSync(configDir, { recursive: true, force: true }),
  ];
  try {
    log('building the renderer with the terminal debug handle');
    await buildRenderer(outDir);
    cleanups.push(await startContainer(runtime));
    const core = createCore({ configDir, env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint } });
    cleanups.push(() => core.dispose());
    const host = await startHost({
      staticDir: outDir,
      services: core.services,
      events: core.events,
      warn: () => undefined,
    });
    cleanups.push(() => host.close());
    const page = await DevtoolsPage.launch({ width: 1440, height: 900 }, initScript);
    cleanups.push(() => page.close());
    await page.goto(host.issueUrl());

    await openShell(page, runtime.endpoint);
    await waitForPrompt(page, 0);
    await echoTimes(page, 0, 20); // warm-up: JIT, the shell's line editor
    const framesBefore = await terminalFrames(page);
    const idle = await echoTimes(page, 0, echoKeys);
    // Ctrl-U now and then clears the line: those keys count as keystrokes too.
    const keys = echoKeys + Math.floor(echoKeys / 40) + 1;
    const perKey = ((await terminalFrames(page)) - framesBefore) / keys;
    log(`messages per keystroke: ${round(perKey, 2)}`);
    log(`echo idle: p50 ${round(percentile(idle, 50))} ms, p99 ${round(percentile(idle, 99))} ms`);

    await page.evaluate(() => {
      const split = document.querySelector<HTMLElement>(
        'section.term-pane button[aria-label="Split right"]',
      );
      if (split === null) throw new Error('no Split right button');
      split.click();
    }, undefined);
    await page.waitFor(
      () => window.portholeTerminalDebug?.terminals().length === 2,
      undefined,
      30_000,
    );
    await waitForPrompt(page, 1);
    // The flood figure alone; then a second flood with keys typed in the other pane.
    const alone = await flood(page, 0, undefined);
    const mbps = floodBytes / 1e6 / alone.seconds;
    log(`flood: ${round(mbps)} MB/s (${round(alone.seconds)} s)`);
    const rawSeconds = await rawFlood(page, 0);
    const rawMbps = floodBytes / 1e6 / rawSeconds;
    log(`raw xterm: ${round(rawMbps)} MB/s (${round(rawSeconds)} s)`);
    const transportSeconds = await transportFlood(page, 0);
    const transportMbps = floodBytes / 1e6 / transportSeconds;
    log(`transport, undrawn: ${round(transportMbps)} MB/s (${round(transportSeconds)} s)`);
    const typed = await flood(page, 0, 1);
    log(
      `flood with typing: ${round(floodBytes / 1e6 / typed.seconds)} MB/s, ${typed.echoes.length} echoes meanwhile, ` +
        `p50 ${round(percentile(typed.echoes, 50))} ms, p99 ${round(percentile(typed.echoes, 99))} ms`,
    );
    return {
      term_flood_mbps: round(mbps, 1),
      term_flood_raw_mbps: round(rawMbps, 1),
      term_flood_vs_raw: round(mbps / rawMbps, 2),
      term_transport_mbps: round(transportMbps, 1),
      term_transport_vs_raw: round(transportMbps / rawMbps, 2),
      term_echo_p50_ms: round(percentile(idle, 50), 2),
      term_echo_p99_ms: round(percentile(idle, 99), 2),
      term_echo_during_flood_p99_ms: round(percentile(typed.echoes, 99), 1),
      term_msgs_per_keystroke: round(perKey, 2),
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

export const terminalBench: BenchModule = {
  name: 'terminal',
  async run(context: BenchContext): Promise<readonly BenchFigure[]> {
    const results = await runTerminalBench(context.runtime, context.log);
    return Object.entries(results).map(([name, value]) => {
      const unit = name.endsWith('_mbps') ? 'MB/s' : name.endsWith('_ms') ? 'ms' : '';
      const target = terminalBenchTargets[name as Figure];
      const op = ceilings.has(name as Figure) ? '<=' : '>=';
      return { name, value, unit, ...(target !== undefined && { target: { op, value: target } }) };
    });
  },
};

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const wanted = process.argv.includes('--runtime')
    ? process.argv[process.argv.indexOf('--runtime') + 1]
    : undefined;
  const runtimes = labRuntimes();
  const runtime = runtimes.find((r) => matchesRuntime(r, wanted)) ?? runtimes[runtimes.length - 1];
  if (runtime === undefined) throw new Error('The lab has no runtime.');
  runTerminalBench(runtime, (line) => process.stderr.write(`${line}\n`)).then(
    (results) => process.stdout.write(`${JSON.stringify(results, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
