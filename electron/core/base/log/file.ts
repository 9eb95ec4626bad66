import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createStream, type RotatingFileStream } from 'rotating-file-stream';
import type { AppLogEntry } from '../../../../shared/model';
import type { Disposable } from '../../../../shared/lifecycle';
import { formatLogLine } from '../../../../shared/app-log';
import type { LogSink } from './logger';

export interface LogFileOptions {
  /** The folder the files go in, e.g. `<config dir>/logs`; made (0700) when missing. */
  readonly dir: string;
  /** Default `porthole.log`; older ones are `porthole.log.1` (newest) … `.<keep>`. */
  readonly name?: string;
  /** A file is rotated once it reaches this many bytes; default 1 MiB. */
  readonly maxBytes?: number;
  /** Rotated files kept besides the current one; default 4 (so at most 5 MiB in all). */
  readonly keep?: number;
}

export const defaultLogFileName = 'porthole.log';
export const defaultLogFileMaxBytes = 1024 * 1024;
export const defaultLogFileKeep = 4;

/**
 * The log on disk: lines appended to `<dir>/porthole.log`, rotated by size to `.1` … `.keep`
 * (the oldest dropped), so the files never hold more than about `(keep + 1) × maxBytes`.
 * Private to the user (0600 in a 0700 folder): even redacted, it names hosts and pods.
 * Rotation is rotating-file-stream's (renames, in order, under its own write queue).
 */
export class LogFile implements LogSink, Disposable {
  readonly path: string;
  private readonly stream: RotatingFileStream;
  private failed = false;

  constructor(options: LogFileOptions) {
    const name = options.name ?? defaultLogFileName;
    this.path = join(options.dir, name);
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    this.stream = createStream(name, {
      path: options.dir,
      size: `${options.maxBytes ?? defaultLogFileMaxBytes}B`,
      rotate: options.keep ?? defaultLogFileKeep,
      mode: 0o600,
    });
    this.stream.on('error', (error) => {
      // The log can't log its own failure: say it once where a developer sees it, and
      // stop writing (the recent-entries ring in Diagnostics still has everything).
      if (this.failed) return;
      this.failed = true;
      process.emitWarning(`Porthole's log file ${this.path} failed: ${error.message}`);
    });
  }

  write(entry: AppLogEntry): void {
    if (this.failed || this.stream.destroyed) return;
    this.stream.write(formatLogLine(entry));
  }

  /** Resolves once every line written so far is in the file. */
  flush(): Promise<void> {
    if (this.failed || this.stream.destroyed) return Promise.resolve();
    return new Promise((resolve) => this.stream.write('', () => resolve()));
  }

  dispose(): void {
    if (!this.stream.destroyed) this.stream.end();
  }

  /** Resolves once the file is closed (tests, and a shell that waits before it quits). */
  close(): Promise<void> {
    if (this.stream.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.stream.once('close', () => resolve());
      this.dispose();
    });
  }
}
