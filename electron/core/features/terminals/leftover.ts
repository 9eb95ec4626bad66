/**
 * The process of an exec session whose stream broke (the runtime restarted, the stream
 * server failed): the runtime never said it ended, and it often has not — a shell keeps
 * running in the container, detached. Found with ExecSync and a small `sh` script that
 * reads /proc in the container (the same source `ps` reads, without needing `ps`):
 *
 * - an exec'd process's parent is outside the container's PID namespace, so its ppid is 0;
 * - its command line is the session's command, exactly;
 * - it started when the session opened: its age, from /proc/<pid>/stat's start time and
 *   /proc/uptime, both read in the container (no clock of ours is compared with the
 *   node's), matches the session's age.
 *
 * Ending it checks the start time again first (a pid may have been reused), sends SIGTERM,
 * and SIGKILL if it is still there a moment later. A container without `sh` can't be
 * looked into: that is said, not guessed.
 */
import { AppError, isAppError } from '../../../../shared/errors';
import type { LeftoverProcess, LeftoverRef } from '../../../../shared/model';
import type { NodeClient } from '../nodes';

export type LeftoverClient = Pick<NodeClient, 'execSync'>;

/** `pid ppid starttime` then the raw cmdline (NUL-separated), one process per line. */
const listScript = [
  'read up _ < /proc/uptime',
  'echo "uptime $up"',
  'for d in /proc/[0-9]*; do',
  '  p=${d#/proc/}',
  '  [ "$p" = "$$" ] && continue',
  '  s=$(cat "$d/stat" 2>/dev/null) || continue',
  '  s=${s##*) }',
  '  set -- $s',
  '  printf "proc %s %s %s " "$p" "$2" "${20}"',
  '  cat "$d/cmdline" 2>/dev/null',
  '  echo',
  'done',
].join('\n');

/** Sends TERM to $1 if it still started at $2, then KILL if it is there a moment later. */
const endScript = [
  'same() { s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; s=${s##*) }; set -- $s; [ "${20}" = "$START" ]; }',
  'START=$2',
  'same "$1" || exit 3',
  'kill -TERM "$1" || exit 4',
  'for i in 1 2 3 4 5 6 7 8 9 10; do same "$1" || exit 0; sleep 0.2; done',
  'kill -KILL "$1" && echo killed',
].join('\n');

/** Clock ticks per second in /proc/<pid>/stat: USER_HZ, 100 on every Linux ABI. */
const ticksPerSecond = 100;
/** How far the process's start may be from the session's opening, in seconds. */
const startToleranceSeconds = 5;
const execTimeoutSeconds = 10;

interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly startTicks: number;
  readonly args: readonly string[];
}

/** Parses the list script's output. Exported for its unit test. */
export function parseProcList(output: string): {
  uptimeSeconds: number | undefined;
  processes: ProcEntry[];
} {
  let uptimeSeconds: number | undefined;
  const processes: ProcEntry[] = [];
  for (const line of output.split('\n')) {
    if (line.startsWith('uptime ')) {
      const value = Number.parseFloat(line.slice(7));
      if (Number.isFinite(value)) uptimeSeconds = value;
      continue;
    }
    const match = /^proc (\d+) (\d+) (\d+) (.*)$/s.exec(line);
    if (match === null) continue;
    const [, pid, ppid, start, cmdline = ''] = match;
    processes.push({
      pid: Number(pid),
      ppid: Number(ppid),
      startTicks: Number(start),
      args: cmdline.split('\0').filter((arg, index, all) => arg !== '' || index < all.length - 1),
    });
  }
  return { uptimeSeconds, processes };
}

function sameCommand(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((arg, index) => arg === b[index]);
}

/** Picks the session's process from the container's processes; undefined if none fits. */
export function matchLeftover(
  ref: Pick<LeftoverRef, 'command' | 'openedAt'>,
  list: ReturnType<typeof parseProcList>,
  now: number,
): LeftoverProcess | undefined {
  const { uptimeSeconds } = list;
  if (uptimeSeconds === undefined) return undefined;
  const sessionAge = (now - ref.openedAt) / 1000;
  let best: { process: LeftoverProcess; off: number } | undefined;
  for (const entry of list.processes) {
    if (entry.ppid !== 0 || entry.pid === 1 || !sameCommand(entry.args, ref.command)) continue;
    const age = uptimeSeconds - entry.startTicks / ticksPerSecond;
    const off = Math.abs(age - sessionAge);
    if (off > startToleranceSeconds || (best !== undefined && best.off <= off)) continue;
    best = {
      off,
      process: {
        pid: entry.pid,
        command: entry.args,
        startTicks: entry.startTicks,
        runningForMs: Math.max(0, Math.round(age * 1000)),
      },
    };
  }
  return best?.process;
}

function noShell(error: unknown): AppError | undefined {
  if (!isAppError(error)) return undefined;
  if (
    !/executable file not found|no such file or directory/i.test(
      `${error.message} ${error.detail ?? ''}`,
    )
  ) {
    return undefined;
  }
  return new AppError({
    code: 'unimplemented',
    message: 'Porthole cannot look for the process: the container has no sh.',
    detail: error.message,
    hint: 'Restart the container to be sure it is gone.',
  });
}

async function run(
  client: LeftoverClient,
  containerId: string,
  cmd: readonly string[],
  signal?: AbortSignal,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  try {
    const result = await client.execSync(containerId, cmd, execTimeoutSeconds, {
      ...(signal !== undefined && { signal }),
    });
    const decode = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
    return {
      exitCode: result.exitCode,
      stdout: decode(result.stdout),
      stderr: decode(result.stderr),
    };
  } catch (error) {
    throw noShell(error) ?? error;
  }
}

/** The session's process if it still runs in the container; undefined when it is gone. */
export async function findLeftover(
  client: LeftoverClient,
  ref: LeftoverRef,
  signal?: AbortSignal,
): Promise<LeftoverProcess | undefined> {
  const { stdout } = await run(client, ref.containerId, ['sh', '-c', listScript], signal);
  return matchLeftover(ref, parseProcList(stdout), Date.now());
}

/**
 * Ends a process findLeftover found: TERM, then KILL if it lingers. Resolves with how it
 * ended; `gone` when it had ended already (or its pid now belongs to another process).
 */
export async function endLeftover(
  client: LeftoverClient,
  ref: LeftoverRef,
  process: Pick<LeftoverProcess, 'pid' | 'startTicks'>,
  signal?: AbortSignal,
): Promise<'terminated' | 'killed' | 'gone'> {
  const { exitCode, stdout, stderr } = await run(
    client,
    ref.containerId,
    ['sh', '-c', endScript, 'sh', String(process.pid), String(process.startTicks)],
    signal,
  );
  if (exitCode === 3) return 'gone';
  if (exitCode !== 0) {
    throw new AppError({
      code: 'internal',
      message: `Porthole could not end process ${process.pid} in the container.`,
      detail: stderr.trim() || `sh exited with ${exitCode}`,
    });
  }
  return stdout.includes('killed') ? 'killed' : 'terminated';
}
