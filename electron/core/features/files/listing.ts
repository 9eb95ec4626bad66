/**
 * A directory's entries from inside a container, with nothing but `sh` and `stat` (which
 * busybox, coreutils and toybox all have): one record per entry, its fields on a line,
 * then its name and its link target each ended by a NUL, so names with spaces, newlines
 * and bytes that are not UTF-8 come through whole.
 */
import { posix } from 'node:path';
import { AppError } from '../../../../shared/errors';
import type { FileEntry, FileEntryType } from '../../../../shared/model';

/** A shell's first line: the usual PATH where the exec brought none (CRI-O's toolbox). */
export const defaultPath =
  'PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}; export PATH\n';

/**
 * `$1` is the directory. Exit 2: it can't be entered (the message on stderr says why).
 * `%f` is the raw mode in hex (type and permission bits), `%Y` the mtime in seconds.
 */
export const listScript = [
  defaultPath + 'cd "$1" || exit 2',
  'for f in .* *; do',
  '  if [ "$f" = . ] || [ "$f" = .. ]; then continue; fi',
  '  if [ ! -e "$f" ] && [ ! -L "$f" ]; then continue; fi',
  '  stat -c \'%f %s %u %g %Y %U %G\' "./$f" 2>/dev/null || continue',
  '  printf \'%s\\0\' "$f"',
  '  if [ -L "$f" ]; then printf \'%s\' "$(readlink "./$f")"; fi',
  "  printf '\\0'",
  'done',
].join('\n');

const typeBits: Readonly<Record<number, FileEntryType>> = {
  0o140000: 'socket',
  0o120000: 'symlink',
  0o100000: 'file',
  0o060000: 'block',
  0o040000: 'directory',
  0o020000: 'char',
  0o010000: 'fifo',
};

const utf8 = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

function decodeName(bytes: Uint8Array): { name: string; undecodable?: true } {
  try {
    return { name: utf8.decode(bytes) };
  } catch {
    return { name: lossy.decode(bytes), undecodable: true };
  }
}

/** Parses what `listScript` printed; at most `max` entries (`truncated` says if more). */
export function parseListing(
  output: Uint8Array,
  max: number,
): { entries: FileEntry[]; truncated: boolean } {
  const entries: FileEntry[] = [];
  let at = 0;
  let truncated = false;
  while (at < output.length) {
    const lineEnd = output.indexOf(0x0a, at);
    if (lineEnd < 0) break;
    const nameEnd = output.indexOf(0, lineEnd + 1);
    if (nameEnd < 0) break;
    const linkEnd = output.indexOf(0, nameEnd + 1);
    if (linkEnd < 0) break;
    // trim: a toolbox with a tty (CRI-O's ExecSync) ends the line with \r.
    const fields = lossy.decode(output.subarray(at, lineEnd)).trim().split(' ');
    at = linkEnd + 1;
    if (entries.length >= max) {
      truncated = true;
      break;
    }
    const [rawMode, size, uid, gid, mtime, owner, group] = fields;
    const mode = Number.parseInt(rawMode ?? '', 16);
    if (!Number.isFinite(mode)) continue;
    const type = typeBits[mode & 0o170000] ?? 'file';
    const link = output.subarray(nameEnd + 1, linkEnd);
    entries.push({
      ...decodeName(output.subarray(lineEnd + 1, nameEnd)),
      type,
      size: Number(size) || 0,
      mode: mode & 0o7777,
      uid: Number(uid) || 0,
      gid: Number(gid) || 0,
      // stat prints UNKNOWN where passwd or group has no name for the id.
      ...(owner !== undefined && owner !== 'UNKNOWN' && { owner }),
      ...(group !== undefined && group !== 'UNKNOWN' && { group }),
      modifiedAt: (Number(mtime) || 0) * 1000,
      ...(type === 'symlink' && { linkTarget: lossy.decode(link) }),
    });
  }
  entries.sort(
    (a, b) =>
      Number(b.type === 'directory') - Number(a.type === 'directory') ||
      a.name.localeCompare(b.name),
  );
  return { entries, truncated };
}

/** An absolute path, normalised; anything else is an `invalid-argument`. */
export function containerPath(value: string, name = 'path'): string {
  if (!value.startsWith('/') || value.includes('\0')) {
    throw new AppError({
      code: 'invalid-argument',
      message: `${name} must be an absolute path in the container, e.g. /etc.`,
    });
  }
  const normal = posix.normalize(value);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** The directory a shell or tar failure was about, in words, from what it printed. */
export function describeFailure(stderr: string, path: string, what: string): AppError {
  const text = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
  const detail = text !== '' ? { detail: text } : {};
  if (/permission denied/i.test(text)) {
    return new AppError({
      code: 'permission-denied',
      message: `Permission denied: ${what} ${path}.`,
      hint: 'The exec runs as the container’s user; a file it can’t read can’t be moved.',
      ...detail,
    });
  }
  if (/no space left/i.test(text)) {
    return new AppError({
      code: 'resource-exhausted',
      message: `No space left in the container: ${what} ${path} stopped, and what it wrote was removed.`,
      ...detail,
    });
  }
  if (/no such file|not found|can't cd|can't open|cannot open|does not exist/i.test(text)) {
    return new AppError({
      code: 'not-found',
      message: `${path} is not there (any more): ${what} it failed.`,
      ...detail,
    });
  }
  if (/is a directory/i.test(text)) {
    return new AppError({
      code: 'failed-precondition',
      message: `${what} ${path} failed: there is a directory where a file was to go, left as it was.`,
      ...detail,
    });
  }
  if (/not a directory/i.test(text)) {
    return new AppError({
      code: 'failed-precondition',
      message: `${path} is not a directory.`,
      ...detail,
    });
  }
  if (/read-only file system/i.test(text)) {
    return new AppError({
      code: 'permission-denied',
      message: `${path} is on a read-only file system: ${what} it failed.`,
      ...detail,
    });
  }
  return new AppError({ code: 'internal', message: `${what} ${path} failed.`, ...detail });
}
