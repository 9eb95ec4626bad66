/**
 * How a forward's failures read and which of them end it: an error another attempt can't
 * fix fails the forward, any other is retried with backoff.
 */
import { AppError, isAppError, type ErrorCode } from '../../../../shared/errors';

/** Errors that another attempt can't fix: fail instead of retrying. */
const permanentCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid-argument',
  'permission-denied',
  'unauthenticated',
  'unimplemented',
  'unsupported-endpoint',
  'protocol-error',
  'cancelled',
]);

export function isPermanent(error: AppError): boolean {
  if (permanentCodes.has(error.code)) return true;
  // A refused upgrade: no common protocol (403) or a bad request (400). A 404 is a used or
  // expired URL, which a new RPC fixes.
  const status = (error as { status?: unknown }).status;
  return status === 400 || status === 403;
}

export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  return new AppError(
    {
      code: 'internal',
      message: 'The forward failed unexpectedly.',
      detail: error instanceof Error ? error.message : String(error),
    },
    { cause: error },
  );
}

/**
 * The stream server broke the port-forward protocol (garbage after the upgrade, data for
 * streams never opened…): another connection would fare no better, so the forward fails,
 * saying what was wrong, instead of reading "active" while every connection dies.
 */
export function protocolFailure(error: AppError): AppError {
  const what = (error.detail ?? error.message).replace(/\.$/, '');
  return new AppError(
    {
      code: 'protocol-error',
      message: `The runtime's stream server broke the port-forward protocol (${what}); the forward stopped.`,
      detail: error.message,
      hint: 'Start it again to retry. If it happens again, what answers at the stream URL is not speaking the Kubernetes stream protocols.',
    },
    { cause: error },
  );
}

export function cancelled(): AppError {
  return new AppError({ code: 'cancelled', message: 'The forward was stopped.' });
}
