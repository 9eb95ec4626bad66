import { AppError, type ErrorCode } from '../../../../../shared/errors';
import { RstStatus, rstStatusName } from './frames';

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
