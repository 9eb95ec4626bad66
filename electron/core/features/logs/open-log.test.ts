import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogUpdate } from '../../../../shared/model';
import { SessionRegistry } from '../sessions';
import { localFiles } from '../../base/files/files';
import type { LogLocation } from './locate';
import { OpenLog } from './open-log';

let dir: string;
let path: string;
let sessions: SessionRegistry;
const open: OpenLog[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'porthole-open-log-'));
  path = join(dir, '0.log');
  sessions = new SessionRegistry();
});
afterEach(() => {
  for (const log of open.splice(0)) log.dispose();
  sessions.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const line = (i: number): string =>
  `2024-05-01T12:00:00.${String(i).padStart(9, '0')}Z stdout F line ${i}\n`;

async function eventually(check: () => void, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function location(running: boolean): LogLocation {
  return {
    path,
    containerId: 'c1',
    containerName: 'app',
    attempt: 0,
    running,
    podSandboxId: 'p1',
    podName: 'web',
    namespace: 'default',
  };
}

function openLog(options: { running?: boolean; reopen?: () => void } = {}) {
  const updates: LogUpdate[] = [];
  const reopens: string[] = [];
  const log = new OpenLog({
    logId: 'log-1',
    nodeId: 'node-1',
    nodeName: 'lab',
    request: { nodeId: 'node-1', containerId: 'c1', follow: true },
    location: location(options.running ?? false),
    files: localFiles,
    client: () => ({
      reopenContainerLog: (containerId: string) => {
        reopens.push(containerId);
        options.reopen?.();
        return Promise.resolve();
      },
    }),
    sessions,
    timings: { missingCheckMs: 50, reopenIntervalMs: 200, pollIntervalMs: 50 },
  });
  open.push(log);
  log.subscribe({ next: (update) => updates.push(update), error: () => undefined });
  return { log, updates, reopens };
}

describe('OpenLog, following', () => {
  it('is a session in the monitor, counting the bytes it reads', async () => {
    writeFileSync(path, line(0) + line(1));
    const { log } = openLog();
    await log.start();
    expect(log.store.lineCount).toBe(2);
    const session = sessions.list().find((candidate) => candidate.id === log.info.sessionId);
    expect(session).toMatchObject({
      kind: 'logs',
      transport: 'file',
      state: 'active',
      detail: path,
      target: { description: 'default/web › app', containerId: 'c1' },
    });
    expect(session?.bytesIn).toBe(Buffer.byteLength(line(0) + line(1)));
  });

  it('reports growth at most ten times a second', async () => {
    writeFileSync(path, '');
    const { log, updates } = openLog();
    await log.start();
    const started = Date.now();
    for (let i = 0; i < 60; i += 1) {
      appendFileSync(path, line(i));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await eventually(() => expect(updates.at(-1)?.lineCount).toBe(60));
    const seconds = (Date.now() - started) / 1000;
    // The first update comes on subscribe; then one per 100 ms at most.
    expect(updates.length - 1).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 1);
    expect(updates.length).toBeGreaterThan(2);
  });

  it('stops following when killed from the monitor, keeping what it read', async () => {
    writeFileSync(path, line(0));
    const { log, updates } = openLog();
    await log.start();
    sessions.kill(log.info.sessionId ?? '');
    expect(updates.at(-1)).toMatchObject({ following: false, lineCount: 1 });
    expect(sessions.list()[0]).toMatchObject({ state: 'ended', killable: false });
    appendFileSync(path, line(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log.store.lineCount).toBe(1);
  });

  it('asks the runtime to reopen a running container’s log that went missing', async () => {
    writeFileSync(path, line(0));
    const { log, reopens } = openLog({
      running: true,
      // What the runtime does on ReopenContainerLog: a new file at the path.
      reopen: () => writeFileSync(path, line(2)),
    });
    await log.start();
    renameSync(path, `${path}.1`);
    appendFileSync(`${path}.1`, line(1));
    await eventually(() => expect(log.store.lineCount).toBe(3));
    expect(reopens).toEqual(['c1']);
    expect(log.store.window('all', 0, 3).map((l) => l.text)).toEqual([
      'line 0',
      'line 1',
      'line 2',
    ]);
  });

  it('does not ask a stopped container to reopen', async () => {
    writeFileSync(path, line(0));
    const { log, reopens } = openLog({ running: false });
    await log.start();
    renameSync(path, `${path}.1`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(reopens).toEqual([]);
  });
});
