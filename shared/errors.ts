/**
 * The one error shape that crosses every boundary (IPC, WebSocket, logs). Electron carries
 * only `message` of an Error across IPC, so errors are serialized on purpose as plain data.
 */

export const errorCodes = [
  'invalid-argument',
  'not-found',
  'already-exists',
  'permission-denied',
  'unauthenticated',
  'failed-precondition',
  'resource-exhausted',
  'unavailable',
  'deadline-exceeded',
  'cancelled',
  'unimplemented',
  'unsupported-endpoint',
  /** The peer broke a wire protocol (a malformed frame, an impossible status). */
  'protocol-error',
  /** An established connection (stream, tunnel, session) dropped. */
  'connection-lost',
  'internal',
  'unknown',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface AppErrorData {
  readonly code: ErrorCode;
  /** One sentence a user can read: what happened. */
  readonly message: string;
  /** Technical detail (the runtime's own words, an errno, a status line), for "details". */
  readonly detail?: string;
  /** What the user can do about it, when we know. */
  readonly hint?: string;
  /**
   * Which step of a multi-step operation failed, in the operation's own terms (see
   * `lifecycle.runFromSpec`), so a UI can show the error next to that step.
   */
  readonly step?: string;
}

export class AppError extends Error implements AppErrorData {
  readonly code: ErrorCode;
  readonly detail?: string;
  readonly hint?: string;
  readonly step?: string;

  constructor(data: AppErrorData, options?: { cause?: unknown }) {
    super(data.message, options);
    this.name = 'AppError';
    this.code = data.code;
    if (data.detail !== undefined) this.detail = data.detail;
    if (data.hint !== undefined) this.hint = data.hint;
    if (data.step !== undefined) this.step = data.step;
  }

  toJSON(): AppErrorData {
    return toAppErrorData(this);
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (errorCodes as readonly string[]).includes(value);
}

/** Plain data for the wire. Anything that is not an AppError becomes `internal`. */
export function toAppErrorData(error: unknown): AppErrorData {
  if (error instanceof AppError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.detail !== undefined && { detail: error.detail }),
      ...(error.hint !== undefined && { hint: error.hint }),
      ...(error.step !== undefined && { step: error.step }),
    };
  }
  if (error instanceof Error) {
    return { code: 'internal', message: error.message || 'Unexpected error', detail: error.name };
  }
  return { code: 'internal', message: 'Unexpected error', detail: String(error) };
}

/** Rebuilds an AppError from wire data, defensively: the other side may be older or buggy. */
export function fromAppErrorData(value: unknown): AppError {
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const message = typeof record.message === 'string' ? record.message : 'Unexpected error';
    return new AppError({
      code: isErrorCode(record.code) ? record.code : 'unknown',
      message,
      ...(typeof record.detail === 'string' && { detail: record.detail }),
      ...(typeof record.hint === 'string' && { hint: record.hint }),
      ...(typeof record.step === 'string' && { step: record.step }),
    });
  }
  return new AppError({ code: 'unknown', message: 'Unexpected error', detail: String(value) });
}
