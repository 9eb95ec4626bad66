import { AppError } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { AppLogEntry, AppLogLevel } from '../../../../shared/model';
import { redact } from './redact';

export const logLevels = ['debug', 'info', 'warn', 'error'] as const satisfies AppLogLevel[];

const rank: Readonly<Record<AppLogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Whether an entry of `level` passes a sink that keeps `threshold` and above. */
export function atLeast(level: AppLogLevel, threshold: AppLogLevel): boolean {
  return rank[level] >= rank[threshold];
}

/** The level named in `value` (PORTHOLE_LOG_LEVEL), or undefined when it names none. */
export function parseLogLevel(value: string | undefined): AppLogLevel | undefined {
  const lower = value?.trim().toLowerCase();
  return logLevels.find((level) => level === lower);
}

/** Where entries go: the log file, the recent-entries ring, a test's list. */
export interface LogSink {
  write(entry: AppLogEntry): void;
}

/**
 * A part of the core writing to the log; `scope` names it ("ssh", "forwards"…). The
 * methods return undefined so that `.catch((error) => log.debug('…', error))` reads as
 * "failed, logged, and the value is undefined".
 */
export interface Logger {
  debug(message: string, cause?: unknown): undefined;
  info(message: string, cause?: unknown): undefined;
  warn(message: string, cause?: unknown): undefined;
  error(message: string, cause?: unknown): undefined;
  /**
   * A listener for a failure someone else reports or that changes nothing (an error
   * event on a stream whose session reports it, a close that failed): logs `what` and
   * the cause at `level` (default debug). For `.catch(…)` and `on('error', …)`.
   */
  failure(what: string, level?: AppLogLevel): (cause: unknown) => undefined;
}

/** A cause's text, at most this long (a runtime can put a whole page in an error). */
const maxDetailChars = 4_000;
/** Stack frames kept for `error` entries. */
const stackFrames = 8;

/** What went wrong, in words for the log: an AppError's code and detail, an Error's chain. */
export function describeCause(cause: unknown, withStack = false): string {
  const parts: string[] = [];
  let current: unknown = cause;
  for (let depth = 0; current !== undefined && depth < 4; depth++) {
    if (current instanceof AppError) {
      parts.push(
        [`${current.code}: ${current.message}`, current.detail].filter(Boolean).join(' — '),
      );
    } else if (current instanceof Error) {
      const code = (current as NodeJS.ErrnoException).code;
      parts.push(`${current.name}${code !== undefined ? ` ${code}` : ''}: ${current.message}`);
    } else {
      parts.push(typeof current === 'string' ? current : safeString(current));
      break;
    }
    if (withStack && depth === 0 && current.stack !== undefined) {
      const frames = current.stack.split('\n').filter((line) => /^\s+at /.test(line));
      if (frames.length > 0)
        parts.push(`${parts.pop()!}\n${frames.slice(0, stackFrames).join('\n')}`);
    }
    current = current.cause;
  }
  const text = parts.join('\ncaused by ');
  return text.length > maxDetailChars ? `${text.slice(0, maxDetailChars)}…` : text;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  } catch {
    // A cyclic object or a throwing toJSON: its type is all the log can say about it.
    return Object.prototype.toString.call(value);
  }
}

/** A message, at most this long. */
const maxMessageChars = 2_000;

/**
 * The core's one log. Parts of the core take a `Logger` for their scope from it; the
 * composition root attaches the sinks (the rotating file, the recent-entries ring that
 * Diagnostics reads). Every entry is redacted once, here, before any sink sees it, so no
 * sink can forget to. With no sink attached (most unit tests) entries go nowhere.
 *
 * One log per process: the base's streaming, SSH and file code sits far below any
 * constructor that could be handed one, and a process has one config directory to write
 * to. Several cores in one process (tests) each attach their sinks and all see every entry.
 */
/**
 * How much one scope may write: `entries` per `windowMs`. Past it, entries are counted,
 * not written, and the next window starts with one entry saying how many were dropped:
 * a client that floods the core with refused requests can't wash the log's history out.
 */
export interface LogBudget {
  readonly entries: number;
  readonly windowMs: number;
}

export const defaultLogBudget: LogBudget = { entries: 200, windowMs: 60_000 };

interface ScopeWindow {
  start: number;
  written: number;
  dropped: number;
}

export class Log {
  private readonly sinks = new Set<LogSink>();
  private threshold: AppLogLevel = 'info';
  private readonly windows = new Map<string, ScopeWindow>();

  constructor(
    private readonly budget: LogBudget = defaultLogBudget,
    private readonly now: () => number = Date.now,
  ) {}

  /** Entries below `level` are dropped before any work is done on them; default info. */
  setLevel(level: AppLogLevel): void {
    this.threshold = level;
  }

  attach(sink: LogSink): Disposable {
    this.sinks.add(sink);
    return toDisposable(() => this.sinks.delete(sink));
  }

  /** A logger for one part of the core. */
  scope(scope: string): Logger {
    const at =
      (level: AppLogLevel) =>
      (message: string, cause?: unknown): undefined => {
        this.write(level, scope, message, cause);
        return undefined;
      };
    return {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      failure: (what, level = 'debug') => {
        const write = at(level);
        return (cause) => write(what, cause);
      },
    };
  }

  write(level: AppLogLevel, scope: string, message: string, cause?: unknown): void {
    if (this.sinks.size === 0 || !atLeast(level, this.threshold)) return;
    const time = this.now();
    if (!this.withinBudget(scope, time)) return;
    const cut =
      message.length > maxMessageChars ? `${message.slice(0, maxMessageChars)}…` : message;
    this.emit({
      time,
      level,
      scope,
      message: redact(cut),
      ...(cause !== undefined && { detail: redact(describeCause(cause, level === 'error')) }),
    });
  }

  /** Counts the entry against its scope's window; false when the window is spent. */
  private withinBudget(scope: string, time: number): boolean {
    let window = this.windows.get(scope);
    if (window === undefined || time - window.start >= this.budget.windowMs) {
      const dropped = window?.dropped ?? 0;
      window = { start: time, written: 0, dropped: 0 };
      this.windows.set(scope, window);
      if (dropped > 0) {
        window.written++;
        this.emit({
          time,
          level: 'warn',
          scope,
          message: `${dropped} more ${dropped === 1 ? 'entry was' : 'entries were'} dropped: more than ${this.budget.entries} in ${this.budget.windowMs / 1000} s.`,
        });
      }
    }
    if (window.written >= this.budget.entries) {
      window.dropped++;
      return false;
    }
    window.written++;
    return true;
  }

  private emit(entry: AppLogEntry): void {
    for (const sink of this.sinks) {
      try {
        sink.write(entry);
      } catch {
        // A sink that throws (a full disk under the file's stream) must not take the
        // caller down, and can't be logged to: it is the log.
      }
    }
  }
}

/** The process's log (see `Log`). */
export const log = new Log();

/** Shorthand for `log.scope(scope)`. */
export function logger(scope: string): Logger {
  return log.scope(scope);
}
