import { type ExecFileException, execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** An error meant for the person running the lab: a message, plus optional detail. */
export class LabError extends Error {
  override readonly name = 'LabError';
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Bytes of stdout/stderr kept; defaults to 64 MiB. */
  maxBuffer?: number;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** The last `lines` lines of a text, for error messages. */
export function tail(text: string, lines = 20): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

/** Runs a program with an argument array (never a shell); rejects with a LabError. */
export function run(
  cmd: string,
  args: readonly string[],
  opts: RunOptions = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        timeout: opts.timeoutMs ?? 0,
        maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error: ExecFileException | null, stdout: string, stderr: string) => {
        if (error == null) {
          resolve({ stdout, stderr });
          return;
        }
        const how =
          error.killed === true
            ? `timed out after ${opts.timeoutMs ?? 0} ms`
            : error.code === 'ENOENT'
              ? 'not found'
              : error.signal != null
                ? `killed by ${error.signal}`
                : `exit code ${String(error.code)}`;
        const output = tail([stderr, stdout].filter((s) => s.trim() !== '').join('\n'));
        reject(new LabError(`${cmd} ${args.join(' ')}: ${how}`, output || undefined));
      },
    );
  });
}

/** Like run, but resolves to undefined instead of rejecting. */
export async function tryRun(
  cmd: string,
  args: readonly string[],
  opts: RunOptions = {},
): Promise<RunResult | undefined> {
  try {
    return await run(cmd, args, opts);
  } catch {
    return undefined;
  }
}

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Finds a program on PATH, also looking in the sbin dirs that a non-login PATH may lack. */
export async function which(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const extra of [
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
    '/bin',
  ]) {
    if (!dirs.includes(extra)) dirs.push(extra);
  }
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
