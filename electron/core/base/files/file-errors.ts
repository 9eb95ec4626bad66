import { userInfo } from 'node:os';
import { AppError } from '../../../../shared/errors';

/** node:fs failures in words, naming the path. */
export function toLocalFileError(error: unknown, path: string): AppError {
  if (error instanceof AppError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new AppError({
      code: 'not-found',
      message: `There is no file ${path} on this machine.`,
    });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new AppError({
      code: 'permission-denied',
      message: `Porthole (running as ${userInfo().username}) may not read ${path}.`,
      hint: 'Container logs are usually readable by root only: run Porthole as a user who may read the log directory, or give your user read access to it.',
    });
  }
  if (code === 'EISDIR') {
    return new AppError({
      code: 'failed-precondition',
      message: `${path} is a directory, not a log file.`,
    });
  }
  return new AppError({
    code: 'unavailable',
    message: `Reading ${path} failed.`,
    detail: error instanceof Error ? error.message : String(error),
  });
}

/** node:fs failures of a `mkdir -p` in words, naming the directory. */
export function toLocalDirectoryError(error: unknown, path: string): AppError {
  if (error instanceof AppError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new AppError({
      code: 'permission-denied',
      message: `Porthole (running as ${userInfo().username}) may not create ${path}.`,
      hint: 'Run Porthole as a user who may write there (usually root), or choose a directory that user may write.',
    });
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new AppError({
      code: 'failed-precondition',
      message: `${path} can't be created: a part of it exists and is not a directory.`,
    });
  }
  return new AppError({
    code: 'unavailable',
    message: `Creating ${path} failed.`,
    detail: error instanceof Error ? error.message : String(error),
  });
}
