/**
 * The v4+ status on the error channel: a Kubernetes `metav1.Status` as JSON, sent on
 * success too. Exit codes come only from here: the cause whose reason is `ExitCode`.
 */
import { AppError } from '../../../../../shared/errors';

export interface CommandStatus {
  /** Set for exec when the server reported one (0 on `Success`). */
  readonly exitCode?: number;
  /** `Success`, `NonZeroExitCode`, `InternalError`… as the server said. */
  readonly reason: string;
  /** The server's message (empty on success). */
  readonly message: string;
}

/** Error channel data beyond this is not a status: refuse to buffer it. */
export const MAX_STATUS_BYTES = 64 * 1024;

function garbage(why: string, text: string): AppError {
  return new AppError({
    code: 'protocol-error',
    message: `The stream server sent an unreadable command status (${why}).`,
    detail: text.length > 300 ? `${text.slice(0, 300)}…` : text,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseExitCode(value: unknown, text: string): number {
  if (typeof value !== 'string' || !/^\d{1,3}$/.test(value.trim())) {
    throw garbage('the ExitCode cause is not a number', text);
  }
  const code = Number(value.trim());
  if (code > 255) throw garbage('the exit code is outside 0–255', text);
  return code;
}

function exitCodeFrom(details: unknown, text: string): number | undefined {
  if (details === undefined || details === null) return undefined;
  if (!isRecord(details)) throw garbage('details is not an object', text);
  const causes = details.causes;
  if (causes === undefined || causes === null) return undefined;
  if (!Array.isArray(causes)) throw garbage('details.causes is not a list', text);
  for (const cause of causes as unknown[]) {
    if (isRecord(cause) && cause.reason === 'ExitCode') return parseExitCode(cause.message, text);
  }
  return undefined;
}

/**
 * Decodes a v4 status. Throws a `protocol-error` AppError for anything that is not a
 * Status object (unknown keys such as `metadata`, `kind`, `code` are accepted).
 */
export function decodeStatus(data: Uint8Array): CommandStatus {
  const text = Buffer.from(data).toString('utf8').trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw garbage('not JSON', text);
  }
  if (!isRecord(value)) throw garbage('not a JSON object', text);
  const { status } = value;
  const message = typeof value.message === 'string' ? value.message : '';
  if (status === 'Success') return { exitCode: 0, reason: 'Success', message };
  if (status !== 'Failure') throw garbage('status is neither Success nor Failure', text);
  const reason = typeof value.reason === 'string' && value.reason !== '' ? value.reason : 'Unknown';
  const exitCode = exitCodeFrom(value.details, text);
  if (reason === 'NonZeroExitCode' && exitCode === undefined) {
    throw garbage('a non-zero exit without an ExitCode cause', text);
  }
  return { ...(exitCode !== undefined && { exitCode }), reason, message };
}
