import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../../../../shared/errors';

/** Reads a JSON file; undefined when it does not exist. Malformed JSON is an AppError. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fileError('read', path, error);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AppError({
      code: 'failed-precondition',
      message: `${path} is not valid JSON.`,
      detail: error instanceof Error ? error.message : String(error),
      hint: 'Fix or delete the file; Porthole writes a new one when settings change.',
    });
  }
}

/**
 * Writes JSON so that a crash or a full disk never leaves a half-written file: the text
 * goes to a temporary file beside the target, is flushed to disk, and is renamed over
 * the target in one step. The file is private to the user (it may name hosts and sockets).
 */
export async function writeJsonFileAtomic(path: string, value: unknown): Promise<void> {
  await writeTextFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Writes text the way writeJsonFileAtomic writes JSON (see there): whole or not at all. */
export async function writeTextFileAtomic(path: string, text: string): Promise<void> {
  const directory = dirname(path);
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    // The write's own error is the one to report; a temporary file left behind is a dot
    // file beside the target that the next write does not trip over.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw fileError('write', path, error);
  }
}

/**
 * writeTextFileAtomic without giving the event loop a turn: for what must be on disk before
 * the process goes on (a feature's last state while the core shuts down).
 */
export function writeTextFileAtomicSync(path: string, text: string): void {
  const directory = dirname(path);
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, text, null, 'utf8');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw fileError('write', path, error);
  }
}

function fileError(action: 'read' | 'write', path: string, error: unknown): AppError {
  const code = (error as NodeJS.ErrnoException).code;
  return new AppError(
    {
      code: code === 'EACCES' || code === 'EPERM' ? 'permission-denied' : 'internal',
      message: `Could not ${action} ${path}.`,
      detail: error instanceof Error ? error.message : String(error),
      ...(code === 'EACCES' && { hint: `Check the permissions of ${dirname(path)}.` }),
      ...(code === 'ENOSPC' && { hint: 'The disk is full.' }),
    },
    { cause: error },
  );
}
