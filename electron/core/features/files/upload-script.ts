/**
 * What runs in the container for an upload (upload.ts), and what it says on stdout as it
 * goes. tar mode unpacks into a hidden directory beside the target, checks every file
 * there against the sha256 the core computed as it sent it (the tar's last entry), and
 * only then moves them into place: a failure, a cancel or a mismatch leaves nothing.
 */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import type { Access } from './access';
import { defaultPath } from './listing';

/** Where the files go in the tar, and the entry after them with their sums, one a line. */
export const filesPrefix = 'f/';
export const sumsEntry = 'sums';

/** The most files checked by name on the command line; more go unchecked. */
export const maxCheckedFiles = 100;

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
 * `$1` the sha256sum to check with ('' for none), `$2` the directory, then the files to
 * check, in the order of the sums. Says `ready` once it has somewhere to unpack (the core
 * sends nothing before: a directory it may not write to fails with no byte sent, however
 * fast the core could send), `unpacked` once tar is done (the bytes phase is over), then
 * `checked` or `unchecked` (sha256sum could not run).
 */
const uploadScript = [
  defaultPath,
  giveUp,
  'sum="$1"; d="$2"; shift 2',
  't=$(mktemp -d "$d/.porthole-upload.XXXXXX") || fail 3',
  'trap \'rm -rf "$t"\' EXIT',
  "trap 'exit 130' INT TERM HUP PIPE",
  'echo ready',
  'tar -xf - -C "$t" || fail 4',
  'echo unpacked',
  'check() {',
  '  while [ $# -gt 0 ] && IFS= read -r want; do',
  '    got=$("$sum" < "$t/f/$1") || return 1',
  `    [ "\${got%% *}" = "$want" ] || { printf '%s: its sha256 is not what was sent\\n' "$1" >&2; exit ${mismatchExitCode}; }`,
  '    shift',
  '  done < "$t/sums"',
  '  [ $# -eq 0 ]',
  '}',
  'if [ $# -gt 0 ]; then if check "$@"; then echo checked; else echo unchecked; fi; fi',
  'for f in "$t"/f/* "$t"/f/.[!.]* "$t"/f/..?*; do',
  '  if [ ! -e "$f" ] && [ ! -L "$f" ]; then continue; fi',
  '  n=${f##*/}',
  '  if [ -d "$f" ] && [ -d "$d/$n" ] && [ ! -L "$d/$n" ]; then cp -a "$f/." "$d/$n/" || exit 5',
  '  elif [ -d "$d/$n" ] && [ ! -L "$d/$n" ]; then echo "$d/$n: is a directory: not replaced by a file" >&2; exit 5',
  '  else mv -f "$f" "$d/$n" || exit 5; fi',
  'done',
].join('\n');

/**
 * Without tar: one file through cat, kept only when every byte arrived. Its sum is known
 * only after stdin's end, so it is checked after the move (upload.ts). `ready` once the
 * part file could be made, as above.
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
  'mv -f "$t" "$p" || exit 5',
].join('\n');

/** The exec's command for an upload of `files` into `target`; `check` in tar mode only. */
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
    ];
  }
  const checked = check ? files.map((file) => file.path) : [];
  return ['sh', '-c', uploadScript, 'sh', check ? access.paths.sha256sum : '', target, ...checked];
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
