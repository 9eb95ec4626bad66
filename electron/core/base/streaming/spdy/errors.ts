import { AppError, type AppErrorData, type ErrorCode } from '../../../../../shared/errors';
import { RstStatus, rstStatusName } from './frames';

export interface UpgradeErrorData extends AppErrorData {
  /** The HTTP status of the answer; undefined when no answer came (network, TLS, timeout). */
  readonly status: number | undefined;
  /** The answer's body (the runtime's own words), possibly truncated; '' when none. */
  readonly body: string;
  /** The X-Stream-Protocol-Version values we offered. */
  readonly offered: readonly string[];
}

/**
 * The HTTP upgrade to SPDY/3.1 failed: nothing was streamed. Stream URLs are single use, so
 * a caller that falls back (e.g. to WebSocket) must ask the runtime for a new URL first.
 */
export class UpgradeError extends AppError {
  readonly status: number | undefined;
  readonly body: string;
  readonly offered: readonly string[];

  constructor(data: UpgradeErrorData, options?: { cause?: unknown }) {
    super(data, options);
    this.name = 'UpgradeError';
    this.status = data.status;
    this.body = data.body;
    this.offered = data.offered;
  }
}

/** For fallback logic: true when the upgrade itself failed (no session was established). */
export function isUpgradeFailure(error: unknown): error is UpgradeError {
  return error instanceof UpgradeError;
}

/** The error a stream or a pending createStream gets for a RST_STREAM from the peer. */
export function resetError(status: number, streamId: number): AppError {
  const name = rstStatusName(status);
  const detail = `RST_STREAM ${name} on stream ${streamId}`;
  const of = (code: ErrorCode, message: string): AppError =>
    new AppError({ code, message, detail });
  switch (status) {
    case RstStatus.Cancel:
      return of('connection-lost', 'The runtime closed the stream.');
    case RstStatus.RefusedStream:
      return of('unavailable', 'The runtime refused the stream.');
    case RstStatus.InternalError:
      return of('internal', 'The runtime reset the stream after an internal error.');
    case RstStatus.InvalidCredentials:
      return of('permission-denied', 'The runtime rejected the stream credentials.');
    case RstStatus.ProtocolError:
    case RstStatus.InvalidStream:
    case RstStatus.UnsupportedVersion:
    case RstStatus.FlowControlError:
    case RstStatus.StreamInUse:
    case RstStatus.StreamAlreadyClosed:
    case RstStatus.FrameTooLarge:
      return of('protocol-error', `The runtime rejected the stream (${name}).`);
    default:
      return of('connection-lost', `The runtime reset the stream (${name}).`);
  }
}
