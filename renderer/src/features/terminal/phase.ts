/** How a session's phase reads in the pane: the status dot and the ended banner. */
import type { ConnectionPhase } from './connection';

export type DotState = 'live' | 'starting' | 'ended' | 'failed';

export function dotState(phase: ConnectionPhase): DotState {
  switch (phase.phase) {
    case 'probing':
    case 'opening':
      return 'starting';
    case 'live':
      return 'live';
    case 'ended':
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

export function endedSummary(phase: Extract<ConnectionPhase, { phase: 'ended' }>): EndedSummary {
  const attach = phase.info?.kind === 'attach';
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
  if (phase.phase === 'probing') return `Looking for a shell in ${containerName}…`;
  if (phase.phase !== 'opening') return undefined;
  return phase.command === undefined
    ? `Attaching to ${containerName}…`
    : `Starting ${phase.command.join(' ')} in ${containerName}…`;
}
