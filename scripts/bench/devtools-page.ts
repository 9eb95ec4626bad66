/**
 * A headless Chromium page driven over the DevTools protocol with only the domains the
 * terminal bench needs: Target, Page, Runtime and Emulation.
 *
 * Why not Playwright here: it enables the Network domain on every page it drives, and then
 * Chromium reports every WebSocket frame to it, base64-encoding binary payloads on the
 * page's own thread. A flood through the browser-mode WebSocket then measures DevTools as
 * much as Porthole: 6.4 MB/s against 10.9 with Network switched off, in back-to-back runs
 * on this machine. No user's browser or Electron window runs with that, so the bench's
 * page doesn't either.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { chromiumArgs, chromiumPath } from '../../test/e2e/support/chromium';

interface Pending {
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
}

interface Viewport {
  readonly width: number;
  readonly height: number;
}

export class DevtoolsPage {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private exited: Error | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly input: Writable,
    private readonly profileDir: string,
    private sessionId = '',
  ) {}

  /** Starts Chromium (`--remote-debugging-pipe`: fds 3 and 4) with one blank page. */
  static async launch(viewport: Viewport, initScript: string): Promise<DevtoolsPage> {
    const profileDir = mkdtempSync(join(tmpdir(), 'porthole-bench-chromium-'));
    const child = spawn(
      chromiumPath,
      [
        ...chromiumArgs,
        '--remote-debugging-pipe',
        `--user-data-dir=${profileDir}`,
        `--window-size=${viewport.width},${viewport.height}`,
      ],
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
    );
    const page = new DevtoolsPage(child, child.stdio[3] as Writable, profileDir);
    page.read(child.stdio[4] as Readable);
    child.once('exit', (code, signal) => {
      page.exited = new Error(`Chromium exited (${signal ?? code ?? 'unknown'}).`);
      for (const { reject } of page.pending.values()) reject(page.exited);
      page.pending.clear();
    });
    try {
      const { targetId } = await page.send('Target.createTarget', { url: 'about:blank' });
      const attached = await page.send('Target.attachToTarget', { targetId, flatten: true });
      page.sessionId = String(attached.sessionId);
      await page.send('Page.enable');
      await page.send('Page.addScriptToEvaluateOnNewDocument', { source: initScript });
      await page.send('Emulation.setDeviceMetricsOverride', {
        ...viewport,
        deviceScaleFactor: 1,
        mobile: false,
      });
      // xterm draws and takes keys as in a window that has focus.
      await page.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    } catch (error) {
      await page.close();
      throw error;
    }
    return page;
  }

  async goto(url: string): Promise<void> {
    await this.send('Page.navigate', { url });
    await this.waitFor(() => document.readyState === 'complete', undefined, 30_000);
  }

  /** Runs `fn(arg)` in the page and returns its (JSON) result, awaiting a promise. */
  async evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> {
    const reply = await this.send('Runtime.evaluate', {
      expression: `(${fn.toString()})(${JSON.stringify(arg) ?? 'undefined'})`,
      awaitPromise: true,
      returnByValue: true,
    });
    const thrown = reply.exceptionDetails as
      { exception?: { description?: string }; text?: string } | undefined;
    if (thrown !== undefined) {
      throw new Error(thrown.exception?.description ?? thrown.text ?? 'The page threw.');
    }
    return (reply.result as { value: R }).value;
  }

  /** Polls `fn(arg)` every 50 ms until it is truthy. */
  async waitFor<A>(fn: (arg: A) => unknown, arg: A, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.evaluate(fn, arg)) return;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${fn.toString()}`);
      await new Promise((wait) => setTimeout(wait, 50));
    }
  }

  async close(): Promise<void> {
    if (this.exited === undefined) {
      const gone = new Promise((done) => this.child.once('exit', done));
      this.child.kill();
      await gone;
    }
    rmSync(this.profileDir, { recursive: true, force: true });
  }

  private send(method: string, params: object = {}): Promise<Record<string, unknown>> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    const id = this.nextId++;
    const message = {
      id,
      method,
      params,
      ...(this.sessionId !== '' && !method.startsWith('Target.') && { sessionId: this.sessionId }),
    };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.input.write(`${JSON.stringify(message)}\0`);
    });
  }

  /** Replies arrive NUL-terminated; events are not listened to. */
  private read(output: Readable): void {
    let buffered = '';
    output.setEncoding('utf8');
    output.on('data', (text: string) => {
      buffered += text;
      for (let end = buffered.indexOf('\0'); end >= 0; end = buffered.indexOf('\0')) {
        const reply = JSON.parse(buffered.slice(0, end)) as {
          id?: number;
          result?: Record<string, unknown>;
          error?: { message: string };
        };
        buffered = buffered.slice(end + 1);
        const waiting = reply.id === undefined ? undefined : this.pending.get(reply.id);
        if (waiting === undefined) continue;
        this.pending.delete(reply.id!);
        if (reply.error !== undefined) waiting.reject(new Error(reply.error.message));
        else waiting.resolve(reply.result ?? {});
      }
    });
  }
}
