/**
 * What runs in the container for an upload (upload.ts), and what it says on stdout as it
 * goes. tar mode unpacks into a hidden directory beside the target, checks every file
 * there against the sha256 the core computed as it sent it (the tar's last entry), and
 * only then moves them into place: a failure, a cancel or a mismatch leaves nothing.
 */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import type { Access } from './access';
import { AppError } from '../../../../shared/errors';
import type { ExecSyncResult } from '../../../../shared/model';
import { defaultPath, describeFailure } from './listing';
import { errorMessage } from './transfer';

/** Where the files go in the tar, and the entry after them with their sums, one a line. */
export const filesPrefix = 'f/';
export const sumsEntry = 'sums';

/** The exit code of a file whose sha256 is not what was sent. */
export const mismatchExitCode = 8;

/**
 * A script that gives up says so on stdout at once (`failed <code>`), so the core stops
 * sending and ends stdin; until then it reads stdin away. The runtime sends an exec's
 * status only once it has copied all of stdin, and a process that is gone reads none of
 * it: the copy, and so the upload, would wait forever (tar out of space, a directory it
 * may not write to).
 */
const giveUp = 'fail() { echo "failed $1"; cat > /dev/null; exit "$1"; }';

/**
 * The sums entry: a line per file, `<sha256> <name>`, the name as printf(1) format text:
 * every byte but a letter, a digit, `.`, `_` or `/` as a `\ooo` escape (so no `%`, no
 * leading `-`, no space or newline). `read` takes such a line whole and printf gives the
 * name back byte for byte, so the names need not be on the command line, whose length
 * would cap how many files an upload can have checked.
 */
export function sumsText(paths: readonly string[], hashes: readonly string[]): string {
  const encoder = new TextEncoder();
  return paths
    .map((path, index) => {
      let name = '';
      for (const byte of encoder.encode(path)) {
        const char = String.fromCharCode(byte);
        name += /[A-Za-z0-9._/]/.test(char) ? char : `\\${byte.toString(8).padStart(3, '0')}`;
      }
      return `${hashes[index]} ${name}\n`;
    })
    .join('');
}

/**
 * `$1` the sha256sum to check with ('' for none), `$2` the directory, `$3` how many files
 * the sums entry must name. Says `ready` once it has somewhere to unpack (the core
 * sends nothing before: a directory it may not write to fails with no byte sent, however
 * fast the core could send), `unpacked` once tar is done (the bytes phase is over), then
 * `checked` or `unchecked` (sha256sum could not run).
 */
const uploadScript = [
  defaultPath,
  giveUp,
  'sum="$1"; d="$2"; count="$3"',
  't=$(mktemp -d "$d/.porthole-upload.XXXXXX") || fail 3',
  'trap \'rm -rf "$t"\' EXIT',
  "trap 'exit 130' INT TERM HUP PIPE",
  'echo ready',
  'tar -xf - -C "$t" || fail 4',
  'echo unpacked',
  'check() {',
  '  n=0',
  '  while IFS=" " read -r want name; do',
  // The x keeps a name's trailing newlines, which $(…) would strip.
  '    name=$(printf "$name"; echo x); name=${name%x}',
  '    got=$("$sum" < "$t/f/$name") || return 1',
  `    [ "\${got%% *}" = "$want" ] || { printf '%s: its sha256 is not what was sent\\n' "$name" >&2; exit ${mismatchExitCode}; }`,
  '    n=$((n + 1))',
  '  done < "$t/sums"',
  '  [ "$n" -eq "$count" ]',
  '}',
  'if [ -n "$sum" ]; then if check; then echo checked; else echo unchecked; fi; fi',
  'for f in "$t"/f/* "$t"/f/.[!.]* "$t"/f/..?*; do',
  '  if [ ! -e "$f" ] && [ ! -L "$f" ]; then continue; fi',
  '  n=${f##*/}',
  '  if [ -d "$f" ] && [ -d "$d/$n" ] && [ ! -L "$d/$n" ]; then cp -a "$f/." "$d/$n/" || exit 5',
  '  elif [ -d "$d/$n" ] && [ ! -L "$d/$n" ]; then echo "$d/$n: is a directory: not replaced by a file" >&2; exit 5',
  '  else mv -f "$f" "$d/$n" || exit 5; fi',
  'done',
].join('\n');

/** Moves part file `$1` to `$2`, unless `$2` is a directory (then the part is removed). */
const moveIn = [
  'if [ -d "$2" ] && [ ! -L "$2" ]; then',
  '  echo "$2: is a directory: not replaced by a file" >&2; rm -f "$1"; exit 5',
  'fi',
  'mv -f "$1" "$2" || exit 5',
].join('\n');

/**
 * Without tar: one file through cat into a part file beside it, kept only when every byte
 * arrived. Its sum is known only after stdin's end, so with `$3` set the part is left for
 * the core to check (`catSumCommand`) and move in (`catMoveCommand`); without, it is
 * moved in here. `ready` once the part file could be made, as above.
 */
const catUploadScript = [
  defaultPath,
  giveUp,
  'p="$1"',
  't="$p.porthole-part"',
  'trap \'rm -f "$t"\' EXIT',
  "trap 'exit 130' INT TERM HUP PIPE",
  ': > "$t" || fail 4',
  'echo ready',
  'cat > "$t" || fail 4',
  '[ "$(wc -c < "$t")" -eq "$2" ] || { echo "the upload was cut short" >&2; exit 6; }',
  'echo unpacked',
  'if [ -n "$3" ]; then trap - EXIT; exit 0; fi',
  // The trap stays: a move that fails leaves no part behind.
  'set -- "$t" "$p"',
  moveIn,
].join('\n');

/**
 * The sha256 of a cat upload's part file of `path`, as `<hex>  -` on stdout. Apart from
 * the move, so a cancel while it runs (it can take a while) still keeps nothing.
 */
function catSumCommand(access: Access, path: string): string[] {
  return ['sh', '-c', `${defaultPath}"$1" < "$2"`, 'sh', access.paths.sha256sum, catPartPath(path)];
}

/** Moves a checked cat upload's part file to `path`: the upload is kept. */
function catMoveCommand(path: string): string[] {
  return ['sh', '-c', `${defaultPath}${moveIn}`, 'sh', catPartPath(path), path];
}

/** Removes the part file of a cat upload of `path` that is not kept. */
export function catRemoveCommand(path: string): string[] {
  return ['sh', '-c', `${defaultPath}rm -f "$1"`, 'sh', catPartPath(path)];
}

/** What checking and keeping a cat upload needs: a way to run commands beside it. */
export interface CatKeep {
  readonly access: Access;
  /** Where the one file goes, as the exec sees it. */
  readonly path: string;
  /** The directory as the user named it (without a debug container's root), for words. */
  readonly directory: string;
  /** The sha256 the core sent. */
  readonly sent: string;
  run(cmd: string[]): Promise<ExecSyncResult>;
  /** Whether the transfer ended (was cancelled) meanwhile. */
  ended(): boolean;
}

/**
 * Checks a cat upload's part file against what was sent, then moves it in: `match`, or
 * `unchecked` where sha256sum can't run (as in tar mode). `mismatch` and `ended` (a
 * cancel during the check) move nothing; the part is the caller's to remove then.
 * Rejects with the container's words when the move fails, and when the check can't be
 * asked at all.
 */
export async function keepCatUpload(
  keep: CatKeep,
): Promise<'match' | 'unchecked' | 'mismatch' | 'ended'> {
  const sum = await keep.run(catSumCommand(keep.access, keep.path)).catch((error: unknown) => {
    throw new AppError({
      code: 'unavailable',
      message: 'The upload could not be checked in the container: nothing was kept.',
      detail: errorMessage(error),
    });
  });
  if (keep.ended()) return 'ended';
  const theirs =
    sum.exitCode === 0 ? new TextDecoder().decode(sum.stdout).split(' ')[0] : undefined;
  if (theirs !== undefined && theirs !== keep.sent) return 'mismatch';
  const moved = await keep.run(catMoveCommand(keep.path));
  if (moved.exitCode !== 0) {
    throw describeFailure(new TextDecoder().decode(moved.stderr), keep.directory, 'uploading to');
  }
  return theirs === undefined ? 'unchecked' : 'match';
}

/** Where a cat upload of `path` is written until it is kept. */
export function catPartPath(path: string): string {
  return `${path}.porthole-part`;
}

/**
 * The exec's command for an upload of `files` into `target`; `check`: the container's
 * sha256sum checks what arrived before it is kept.
 */
export function uploadCommand(
  access: Access,
  target: string,
  files: readonly { readonly path: string; readonly size: number }[],
  check: boolean,
): string[] {
  if (!access.tar) {
    return [
      'sh',
      '-c',
      catUploadScript,
      'sh',
      posix.join(target, files[0]!.path),
      String(files[0]!.size),
      check ? 'keep' : '',
    ];
  }
  return [
    'sh',
    '-c',
    uploadScript,
    'sh',
    check ? access.paths.sha256sum : '',
    target,
    String(files.length),
  ];
}

export type ScriptReport =
  | { readonly said: 'failed'; readonly code: number }
  | { readonly said: 'ready' | 'unpacked' | 'checked' | 'unchecked' };

/** Calls `heard` with each line the script says on stdout (a few, each short). */
export function listenToScript(stdout: Readable, heard: (report: ScriptReport) => void): void {
  let pending = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (text: string) => {
    pending += text;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
      if (line.startsWith('failed ')) heard({ said: 'failed', code: Number(line.slice(7)) });
      else if (
        line === 'ready' ||
        line === 'unpacked' ||
        line === 'checked' ||
        line === 'unchecked'
      ) {
        heard({ said: line });
      }
    }
    // Nothing else is said: a line that long is not the script's.
    if (pending.length > 1024) pending = '';
  });
}
