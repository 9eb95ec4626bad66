/**
 * How a terminal ended, in one sentence for the pane and the session monitor: from the
 * stream's result (exit status or transport failure), who closed it, and whether the
 * container itself is still there.
 */
import { isAppError, toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { ContainerState, TerminalKind } from '../../../../shared/model';
import type { SessionEnd } from '../sessions';
import type { RemoteCommandResult } from '../../base/streaming';
import type { TerminalExitEvent } from './output-flow';

export type CommandOutcome = { readonly result: RemoteCommandResult } | { readonly error: unknown };

/** Who ended the terminal, when it wasn't the process or the connection. */
export type ClosedBy = 'user' | 'monitor' | 'shutdown';

/** The container after the stream ended: `gone` when it no longer exists. */
export interface ContainerFate {
  readonly state: ContainerState | 'gone';
  readonly exitCode?: number;
}

export interface TerminalEnding {
  readonly event: TerminalExitEvent;
  readonly session: SessionEnd;
}

const closedReasons: Record<ClosedBy, string> = {
  user: 'The terminal was closed.',
  monitor: 'The session was ended from the session monitor.',
  shutdown: 'Porthole closed the terminal while shutting down.',
};

export function closedEnding(by: ClosedBy): TerminalEnding {
  const reason = closedReasons[by];
  return { event: { type: 'exit', reason }, session: { state: 'ended', reason } };
}

/**
 * How hard to look at the container once the stream ended: not at all after a plain exit
 * status of exec; once after a runtime error; and patiently (the runtime records a stopped
 * container's exit a moment after it ended the session's process) after a signal's 128+n,
 * a dropped stream or an attach ending.
 */
export type ContainerCheck = 'none' | 'once' | 'settle';

export function containerCheck(kind: TerminalKind, outcome: CommandOutcome): ContainerCheck {
  if (!('result' in outcome) || kind === 'attach') return 'settle';
  const { exitCode, reason, message } = outcome.result;
  if (exitCode !== undefined && exitCode >= 128) return 'settle';
  if (exitCode !== undefined && (reason === 'Success' || reason === 'NonZeroExitCode')) {
    return 'none';
  }
  // CRI-O reports a session's process killed with its container as a runtime error
  // ("error executing command in container: signal: killed"), not as 128+n.
  if (killedBySignal.test(message)) return 'settle';
  return 'once';
}

const killedBySignal = /\bsignal: (killed|terminated)\b/i;

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The container's end, when it ended the session: what became of it and a sentence. */
function containerEnded(
  fate: ContainerFate | undefined,
  kind: TerminalKind,
): { readonly container: 'stopped' | 'removed'; readonly text: string } | undefined {
  if (fate === undefined || fate.state === 'running') return undefined;
  if (fate.state === 'gone') return { container: 'removed', text: 'The container was removed.' };
  const code = fate.exitCode !== undefined ? ` (exit code ${fate.exitCode})` : '';
  if (fate.state === 'exited') {
    // An exec session ends with its container: someone stopped it (crictl stop, the
    // kubelet), or its main process ended. Attach follows the main process itself.
    return {
      container: 'stopped',
      text:
        kind === 'attach'
          ? `The container exited${code}.`
          : `The container was stopped${code}; the session ended with it.`,
    };
  }
  return { container: 'stopped', text: `The container is no longer running (${fate.state}).` };
}

/** A status the runtime reported instead of an exit (InternalError…), in the user's words. */
function runtimeFailure(command: readonly string[], message: string): AppErrorData {
  const program = command[0];
  if (
    program !== undefined &&
    /executable file not found|no such file or directory/i.test(message)
  ) {
    return {
      code: 'not-found',
      message: `${program} was not found in the container.`,
      detail: message,
      hint: 'Check the command, or open the container’s shell instead.',
    };
  }
  return {
    code: 'internal',
    message:
      command.length > 0
        ? 'The runtime could not run the command.'
        : 'The runtime ended the session.',
    detail: message,
  };
}

export function describeEnding(
  terminal: { readonly kind: TerminalKind; readonly command: readonly string[] },
  outcome: CommandOutcome,
  fate?: ContainerFate,
): TerminalEnding {
  const stopped = containerEnded(fate, terminal.kind);
  const container = stopped === undefined ? {} : { container: stopped.container };
  if ('result' in outcome) {
    const { exitCode, reason, message } = outcome.result;
    const code = exitCode !== undefined ? { exitCode } : {};
    let text: string;
    if (stopped !== undefined) text = stopped.text;
    else if (exitCode !== undefined) text = `Exited with code ${exitCode}.`;
    else if (reason === 'Success' || reason === 'Unknown' || message === '') {
      text = terminal.kind === 'attach' ? 'The container closed its output.' : 'The command ended.';
    } else {
      const error = runtimeFailure(terminal.command, message);
      return {
        event: { type: 'exit', reason: error.message, error },
        session: { state: 'failed', reason: error.message, error },
      };
    }
    return {
      event: { type: 'exit', ...code, reason: text, ...container },
      session: { state: 'ended', reason: text, ...code },
    };
  }
  const error = toAppErrorData(outcome.error);
  if (stopped !== undefined) {
    return {
      event: { type: 'exit', reason: stopped.text, ...container },
      session: { state: 'ended', reason: stopped.text },
    };
  }
  const lostWords =
    isAppError(outcome.error) && outcome.error.code === 'connection-lost'
      ? 'The connection to the node was lost.'
      : sentence(error.message);
  // The stream broke, not the process: nobody told the runtime's side to stop it (a tty
  // shell lives on, detached). Attach has no process of its own.
  const mayStillRun = terminal.kind === 'exec' && fate?.state !== 'gone';
  const text = mayStillRun
    ? `${lostWords} The process may still be running in the container.`
    : lostWords;
  return {
    event: { type: 'exit', reason: text, error, ...(mayStillRun && { mayStillRun }) },
    session: { state: 'failed', reason: text, error },
  };
}
