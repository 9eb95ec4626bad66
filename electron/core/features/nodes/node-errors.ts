/** The errors of connecting and using nodes, in the words the user sees. */
import { AppError, toAppErrorData } from '../../../../shared/errors';

/** A connection attempt under way. */
export interface Attempt {
  readonly controller: AbortController;
  /** Called off by the user (disconnect, removed or changed profile): not a failure. */
  withdrawn: boolean;
  /** A question went unanswered until it timed out. */
  timedOut: boolean;
  /** The user refused a host key. */
  declinedHostKey: boolean;
}

export function cancelledAttempt(name: string): AppError {
  return new AppError({ code: 'cancelled', message: `Connecting to ${name} was cancelled.` });
}

/** A failed attempt's error, in the words that fit how it ended. */
export function attemptError(
  name: string,
  error: unknown,
  attempt: Attempt,
  promptTimeoutMs: number,
): AppError {
  const appError = error instanceof AppError ? error : new AppError(toAppErrorData(error));
  if (appError.code !== 'cancelled') {
    return attempt.controller.signal.aborted ? cancelledAttempt(name) : appError;
  }
  if (attempt.timedOut && !attempt.controller.signal.aborted) {
    return new AppError({
      code: 'deadline-exceeded',
      message: `No answer came to Porthole's question about ${name} within ${duration(promptTimeoutMs)}; it was not connected.`,
      hint: 'Connect again, and answer the question (a host key or a passphrase) when it shows.',
    });
  }
  if (attempt.declinedHostKey && appError.hint === undefined) {
    return new AppError({
      ...toAppErrorData(appError),
      hint: 'Connect again to be asked again. Trust a host key only when its fingerprint matches the one the host shows (on the host: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub).',
    });
  }
  return appError;
}

function duration(ms: number): string {
  if (ms >= 60_000) {
    const minutes = Math.round(ms / 60_000);
    return minutes === 1 ? '1 minute' : `${minutes} minutes`;
  }
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

export function unknownNode(nodeId: string): AppError {
  return new AppError({
    code: 'not-found',
    message: `There is no node "${nodeId}".`,
    hint: 'It may have been removed; refresh the node list.',
  });
}

export function notConnected(name: string): AppError {
  return new AppError({
    code: 'failed-precondition',
    message: `${name} is not connected.`,
    hint: 'Connect the node first.',
  });
}

export function shuttingDown(): AppError {
  return new AppError({ code: 'cancelled', message: 'Porthole is shutting down.' });
}
