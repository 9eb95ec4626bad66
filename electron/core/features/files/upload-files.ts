/**
 * What an upload's request names, checked before anything runs: relative paths within the
 * target, each once, and sizes within what one transfer may move; and the crictl pipe that
 * does the same upload by hand ("Copy as crictl").
 */
import { posix } from 'node:path';
import { AppError } from '../../../../shared/errors';
import type { FilesUploadRequest } from '../../../../shared/model';
import { shellQuote } from '../../../../shared/shell';
import type { Access } from './access';
import { tooLarge } from './transfer';

export interface UploadFile {
  readonly path: string;
  readonly size: number;
}

/** The request's files, checked, and within the bytes one transfer may move. */
export function uploadFiles(request: FilesUploadRequest, maxBytes: number): UploadFile[] {
  const files = request.files.map((file, index) => ({
    path: uploadPath(file.path, index),
    size: file.size,
  }));
  refuseClashes(files);
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > maxBytes) throw tooLarge(`${files.length} files`, maxBytes);
  return files;
}

/** A relative path of an upload, checked: no `..`, nothing absolute, no empty parts. */
function uploadPath(value: string, index: number): string {
  const parts = value.split('/');
  if (
    value === '' ||
    value.includes('\0') ||
    parts.some((part) => part === '' || part === '.' || part === '..')
  ) {
    throw new AppError({
      code: 'invalid-argument',
      message: `files[${index}].path must be a relative path without . or .. parts.`,
    });
  }
  return value;
}

/**
 * Each path once, and no path that is a file here and a folder of another: tar would keep
 * the last of two same paths, so the sums check fails with a mismatch that is not one,
 * and it can't make a folder where it just wrote a file.
 */
function refuseClashes(files: readonly UploadFile[]): void {
  const seen = new Map<string, number>();
  files.forEach((file, index) => {
    const first = seen.get(file.path);
    if (first !== undefined) {
      throw new AppError({
        code: 'invalid-argument',
        message: `${JSON.stringify(file.path)} is in this upload twice (files[${first}] and files[${index}]): each path can be uploaded once.`,
      });
    }
    seen.set(file.path, index);
  });
  files.forEach((file, index) => {
    const parts = file.path.split('/');
    for (let depth = 1; depth < parts.length; depth += 1) {
      const folder = parts.slice(0, depth).join('/');
      const asFile = seen.get(folder);
      if (asFile !== undefined) {
        throw new AppError({
          code: 'invalid-argument',
          message: `${JSON.stringify(folder)} is a file in this upload (files[${asFile}]) and the folder of files[${index}]: it can't be both.`,
        });
      }
    }
  });
}

/** The same upload through crictl, as a user would type it. */
export function crictlUpload(access: Access, target: string, files: readonly UploadFile[]): string {
  const id = access.execIn;
  if (!access.tar) {
    return `crictl exec -i ${id} sh -c 'cat > "$1"' sh ${shellQuote(posix.join(target, files[0]!.path))} < ${shellQuote(files[0]!.path)}`;
  }
  return `tar -cf - ${files.map((file) => shellQuote(file.path)).join(' ')} | crictl exec -i ${id} tar -xf - -C ${shellQuote(target)}`;
}
