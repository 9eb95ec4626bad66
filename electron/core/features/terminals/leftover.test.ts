import { describe, expect, it } from 'vitest';
import { matchLeftover, parseProcList } from './leftover';

/** What the list script prints in a container: its uptime, then one line per process. */
function listing(
  uptime: number,
  processes: [pid: number, ppid: number, start: number, args: string[]][],
): string {
  return [
    `uptime ${uptime}`,
    ...processes.map(
      ([pid, ppid, start, args]) => `proc ${pid} ${ppid} ${start} ${args.join('\0')}\0`,
    ),
    '',
  ].join('\n');
}

describe('finding an exec session left running', () => {
  const now = 1_000_000;
  // The session opened 120 s ago; the container's kernel has been up for 5000 s.
  const ref = { command: ['ash'], openedAt: now - 120_000 };
  const startedSecondsAgo = (seconds: number): number => Math.round((5000 - seconds) * 100);

  it('reads the list, command lines with their arguments', () => {
    const list = parseProcList(listing(5000.5, [[7, 0, 123, ['sh', '-c', 'echo a b']]]));
    expect(list).toEqual({
      uptimeSeconds: 5000.5,
      processes: [{ pid: 7, ppid: 0, startTicks: 123, args: ['sh', '-c', 'echo a b'] }],
    });
  });

  it('picks the exec’d process with the command that started with the session', () => {
    const list = parseProcList(
      listing(5000, [
        [1, 0, startedSecondsAgo(900), ['ash']], // the container's own init
        [40, 0, startedSecondsAgo(600), ['ash']], // an older session
        [55, 0, startedSecondsAgo(119.6), ['ash']], // ours
        [56, 55, startedSecondsAgo(60), ['ash']], // a child of ours
        [60, 0, startedSecondsAgo(120), ['sh']], // another command
      ]),
    );
    expect(matchLeftover(ref, list, now)).toEqual({
      pid: 55,
      command: ['ash'],
      startTicks: startedSecondsAgo(119.6),
      runningForMs: 119_600,
    });
  });

  it('finds nothing once it is gone, or when nothing started near the session', () => {
    expect(matchLeftover(ref, parseProcList(listing(5000, [])), now)).toBeUndefined();
    const older = parseProcList(listing(5000, [[40, 0, startedSecondsAgo(600), ['ash']]]));
    expect(matchLeftover(ref, older, now)).toBeUndefined();
    expect(matchLeftover(ref, parseProcList('garbage'), now)).toBeUndefined();
  });
});
