/** How a session's phase reads in the pane: the status dot and the ended banner. */
import type { ConnectionPhase } from './core-link';

export type DotState = 'live' | 'starting' | 'ended' | 'failed';

export function dotState(phase: ConnectionPhase): DotState {
  switch (phase.phase) {
    case 'opening':
      return 'starting';
    case 'live':
      return 'live';
    case 'ended':
      // A container stopped under the session is not the session's error.
      if (phase.container !== undefined) return 'ended';
      return phase.error !== undefined || (phase.exitCode ?? 0) !== 0 ? 'failed' : 'ended';
  }
}

export function dotLabel(state: DotState): string {
  return { live: 'Running', starting: 'Starting', ended: 'Ended', failed: 'Ended with an error' }[
    state
  ];
}

export interface EndedSummary {
  readonly title: string;
  /** The core's sentence when it adds something to the title. */
  readonly detail?: string;
  readonly hint?: string;
  readonly tone: 'ok' | 'error';
}

type Ended = Extract<ConnectionPhase, { phase: 'ended' }>;

/**
 * Whether Reopen can work: not when the container itself ended (CRI never starts an
 * exited container again, and a removed one is gone).
 */
export function canReopen(phase: ConnectionPhase): boolean {
  return phase.phase === 'ended' && phase.container === undefined;
}

export function endedSummary(phase: Ended): EndedSummary {
  const attach = phase.info?.kind === 'attach';
  if (phase.container !== undefined) {
    const program = phase.info?.command[0]?.split('/').pop();
    const code = phase.exitCode !== undefined ? ` (exit code ${phase.exitCode})` : '';
    return {
      title:
        phase.container === 'removed'
          ? 'The container was removed.'
          : attach
            ? 'The container exited.'
            : 'The container was stopped.',
      ...(!attach && {
        detail: `The ${program === undefined ? '' : `${program} `}session ended with it${code}.`,
      }),
      hint:
        phase.container === 'removed'
          ? 'Open a terminal in another container.'
          : 'CRI can’t start a stopped container again: open a terminal in another container, or run its pod again (Run pod… on Pods) for a new one.',
      tone: 'ok',
    };
  }
  if (phase.error !== undefined) {
    return {
      title: phase.error.message,
      ...(phase.reason !== phase.error.message && { detail: phase.reason }),
      ...(phase.error.hint !== undefined && { hint: phase.error.hint }),
      tone: 'error',
    };
  }
  if (phase.exitCode !== undefined) {
    return {
      title: `${attach ? 'The container' : 'The process'} exited with code ${phase.exitCode}.`,
      ...(phase.reason !== '' &&
        !/exit(ed)? (with )?code/i.test(phase.reason) && { detail: phase.reason }),
      tone: phase.exitCode === 0 ? 'ok' : 'error',
    };
  }
  return { title: phase.reason === '' ? 'The session ended.' : phase.reason, tone: 'ok' };
}

/** What the pane says while it starts. */
export function startingText(phase: ConnectionPhase, containerName: string): string | undefined {
  if (phase.phase !== 'opening') return undefined;
  if (phase.shell === true) return `Looking for a shell in ${containerName}…`;
  return phase.command === undefined
    ? `Attaching to ${containerName}…`
    : `Starting ${phase.command.join(' ')} in ${containerName}…`;
}
