import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { AppLogEntry } from '../../../../shared/model';
import { formatLogLine } from '../../../../shared/app-log';
import { LogFile } from './file';
import { describeCause, Log, parseLogLevel } from './logger';
import { RecentLog } from './recent';

function entry(message: string, extra: Partial<AppLogEntry> = {}): AppLogEntry {
  return { time: Date.UTC(2026, 11, 1, 23, 40), level: 'warn', scope: 'test', message, ...extra };
}

describe('Log', () => {
  it('hands every sink the same redacted entry, and stops at detach', () => {
    const log = new Log();
    const seen: AppLogEntry[] = [];
    const attached = log.attach({ write: (e) => seen.push(e) });
    const scoped = log.scope('ssh');
    scoped.warn('connect ssh://bob:hunter2@node failed', new Error('password=hunter2 refused'));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ level: 'warn', scope: 'ssh' });
    expect(JSON.stringify(seen[0])).not.toContain('hunter2');
    attached.dispose();
    scoped.error('after');
    expect(seen).toHaveLength(1);
  });

  it('drops entries below its level, and failure() logs at debug by default', () => {
    const log = new Log();
    const seen: string[] = [];
    log.attach({ write: (e) => seen.push(`${e.level} ${e.message} ${e.detail ?? ''}`) });
    const scoped = log.scope('x');
    expect(scoped.debug('hidden')).toBeUndefined();
    expect(scoped.failure('closing failed')(new Error('EBADF'))).toBeUndefined();
    scoped.failure('start failed', 'warn')(new Error('EADDRINUSE'));
    log.setLevel('debug');
    scoped.failure('closing failed')(new Error('EBADF'));
    expect(seen).toEqual([
      'warn start failed Error: EADDRINUSE',
      'debug closing failed Error: EBADF',
    ]);
  });

  it('bounds what one scope writes per window, and says how much it dropped', () => {
    let now = 0;
    const log = new Log({ entries: 3, windowMs: 1_000 }, () => now);
    const seen: string[] = [];
    log.attach({ write: (e) => seen.push(`${e.scope} ${e.message}`) });
    const flood = log.scope('rpc');
    for (let i = 0; i < 10; i++) flood.warn(`refused ${i}`);
    log.scope('nodes').info('still heard');
    expect(seen).toEqual(['rpc refused 0', 'rpc refused 1', 'rpc refused 2', 'nodes still heard']);
    now = 1_000;
    flood.warn('later');
    expect(seen.slice(4)).toEqual([
      'rpc 7 more entries were dropped: more than 3 in 1 s.',
      'rpc later',
    ]);
  });

  it('survives a sink that throws', () => {
    const log = new Log();
    const seen: string[] = [];
    log.attach({
      write: () => {
        throw new Error('disk full');
      },
    });
    log.attach({ write: (e) => seen.push(e.message) });
    log.scope('x').info('still here');
    expect(seen).toEqual(['still here']);
  });

  it('bounds a message and describes causes with their chain', () => {
    const log = new Log();
    const seen: AppLogEntry[] = [];
    log.attach({ write: (e) => seen.push(e) });
    log.scope('x').info('m'.repeat(10_000));
    expect(seen[0]!.message.length).toBeLessThanOrEqual(2_001);
    const error = new AppError(
      { code: 'unavailable', message: 'The runtime does not answer.', detail: 'ECONNREFUSED' },
      { cause: Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' }) },
    );
    expect(describeCause(error)).toBe(
      'unavailable: The runtime does not answer. — ECONNREFUSED\ncaused by Error ECONNREFUSED: connect failed',
    );
    expect(describeCause(new Error('boom'), true)).toMatch(/^Error: boom\n\s+at /);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeCause(cyclic)).toBe('[object Object]');
  });

  it('reads PORTHOLE_LOG_LEVEL', () => {
    expect(parseLogLevel(' Debug ')).toBe('debug');
    expect(parseLogLevel('verbose')).toBeUndefined();
    expect(parseLogLevel(undefined)).toBeUndefined();
  });
});

describe('formatLogLine', () => {
  it('writes one line per entry, the cause indented below it', () => {
    expect(formatLogLine(entry('hello'))).toBe('2026-12-01T23:40:00.000Z WARN  test: hello\n');
    expect(formatLogLine(entry('a', { detail: 'x\ny' }))).toBe(
      '2026-12-01T23:40:00.000Z WARN  test: a\n    x\n    y\n',
    );
  });

  it('never lets a message forge an entry of its own', () => {
    const forged = 'ok\n2026-12-01T23:40:00.000Z ERROR nodes: forged\r\x1b[2J';
    const text = formatLogLine(entry(forged, { detail: `d\n${forged}` }));
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((line) => /^\d{4}-/.test(line))).toHaveLength(1);
    expect(text).toContain('\\r\\x1b[2J');
  });
});

describe('RecentLog', () => {
  it('keeps the newest entries in a bounded ring, oldest first', () => {
    const recent = new RecentLog({ capacity: 5, maxEntries: 3, maxChars: 1_000 });
    expect(recent.tail(10)).toEqual({ entries: [], omitted: 0 });
    for (let i = 0; i < 12; i++) recent.write(entry(`m${i}`));
    expect(recent.tail(10).entries.map((e) => e.message)).toEqual(['m9', 'm10', 'm11']);
    expect(recent.tail(2)).toMatchObject({ omitted: 10 });
    expect(recent.tail(2).entries.map((e) => e.message)).toEqual(['m10', 'm11']);
  });

  it('bounds an answer by characters, always keeping the newest entry', () => {
    const recent = new RecentLog({ capacity: 10, maxEntries: 10, maxChars: 250 });
    for (let i = 0; i < 4; i++) recent.write(entry(`${i}`.repeat(100)));
    expect(recent.tail(10).entries.map((e) => e.message[0])).toEqual(['2', '3']);
    const one = new RecentLog({ capacity: 2, maxEntries: 2, maxChars: 10 });
    one.write(entry('x'.repeat(100)));
    expect(one.tail(2).entries).toHaveLength(1);
  });
});

describe('LogFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes private files and rotates by size, keeping at most `keep` old ones', async () => {
    const logs = join(dir, 'logs');
    const file = new LogFile({ dir: logs, maxBytes: 2_000, keep: 2 });
    for (let i = 0; i < 200; i++) file.write(entry(`line ${i} ${'x'.repeat(80)}`));
    await file.close();
    expect((await readdir(logs)).sort()).toEqual([
      'porthole.log',
      'porthole.log.1',
      'porthole.log.2',
    ]);
    expect((await stat(logs)).mode & 0o777).toBe(0o700);
    let previous = -1;
    for (const name of ['porthole.log.2', 'porthole.log.1', 'porthole.log']) {
      const info = await stat(join(logs, name));
      expect(info.mode & 0o777).toBe(0o600);
      // A file passes the cap by at most the one entry that crossed it.
      expect(info.size).toBeLessThan(2_000 + 200);
      const numbers = [...(await readFile(join(logs, name), 'utf8')).matchAll(/line (\d+)/g)].map(
        (match) => Number(match[1]),
      );
      expect(numbers[0]).toBeGreaterThan(previous);
      previous = numbers.at(-1)!;
    }
    expect(previous).toBe(199);
  });

  it('goes on where the last run stopped, and rotates a file already full', async () => {
    await writeFile(join(dir, 'porthole.log'), 'y'.repeat(3_000));
    const file = new LogFile({ dir, maxBytes: 2_000, keep: 1 });
    file.write(entry('new run'));
    await file.close();
    expect(await readFile(join(dir, 'porthole.log.1'), 'utf8')).toBe('y'.repeat(3_000));
    expect(await readFile(join(dir, 'porthole.log'), 'utf8')).toContain('new run');
  });

  it('flush waits for the disk', async () => {
    const file = new LogFile({ dir });
    file.write(entry('written'));
    await file.flush();
    expect(await readFile(file.path, 'utf8')).toContain('written');
    await file.close();
  });
});
