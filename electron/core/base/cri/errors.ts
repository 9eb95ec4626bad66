import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { AppError, type ErrorCode } from '../../../../shared/errors';

/** What we were doing when a call failed: the words a user needs to place the error. */
export interface CallContext {
  /** The socket path we dialled. */
  readonly socketPath: string;
  /** The CRI method, e.g. "ListContainers". */
  readonly method: string;
  readonly timeoutMs: number;
  /** How long the call ran before failing; tells our deadline from the runtime's. */
  readonly elapsedMs?: number;
  /** Whether the caller cancelled it (its AbortSignal); unary calls only. */
  readonly aborted?: boolean;
}

const codeByGrpcStatus: Partial<Record<GrpcStatus, ErrorCode>> = {
  [GrpcStatus.CANCELLED]: 'cancelled',
  [GrpcStatus.INVALID_ARGUMENT]: 'invalid-argument',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'deadline-exceeded',
  [GrpcStatus.NOT_FOUND]: 'not-found',
  [GrpcStatus.ALREADY_EXISTS]: 'already-exists',
  [GrpcStatus.PERMISSION_DENIED]: 'permission-denied',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'resource-exhausted',
  [GrpcStatus.FAILED_PRECONDITION]: 'failed-precondition',
  [GrpcStatus.OUT_OF_RANGE]: 'invalid-argument',
  [GrpcStatus.UNIMPLEMENTED]: 'unimplemented',
  [GrpcStatus.INTERNAL]: 'internal',
  [GrpcStatus.UNAVAILABLE]: 'unavailable',
  [GrpcStatus.DATA_LOSS]: 'internal',
  [GrpcStatus.UNAUTHENTICATED]: 'unauthenticated',
};

export function isServiceError(error: unknown): error is ServiceError {
  return (
    error instanceof Error &&
    typeof (error as Partial<ServiceError>).code === 'number' &&
    typeof (error as Partial<ServiceError>).details === 'string'
  );
}

/** The errno grpc-js embeds in UNAVAILABLE details ("connect ENOENT /path"). */
function connectErrno(details: string): string | undefined {
  return /\bconnect (E[A-Z]+)\b/.exec(details)?.[1];
}

/**
 * The one place where gRPC failures become user-facing errors. Connection failures are
 * told apart by errno, because "unavailable" alone does not tell a user what to fix.
 */
export function toCriError(error: unknown, context: CallContext): AppError {
  if (error instanceof AppError) return error;
  if (!isServiceError(error)) {
    return new AppError(
      {
        code: 'internal',
        message: `${context.method} failed unexpectedly.`,
        detail: error instanceof Error ? error.message : String(error),
      },
      { cause: error },
    );
  }
  const { socketPath, method } = context;
  const details = error.details;
  if (error.code === GrpcStatus.UNAVAILABLE) {
    const errno = connectErrno(details);
    if (errno !== undefined) return socketError(errno, socketPath, details, error);
    return new AppError(
      {
        code: 'unavailable',
        message: `The runtime at ${socketPath} went away during ${method}.`,
        detail: details,
        hint: 'Check that the runtime is still running; Porthole reconnects on the next request.',
      },
      { cause: error },
    );
  }
  // The runtime also answers DEADLINE_EXCEEDED for its own timeouts (an ExecSync
  // command that ran too long); only a call that used up our deadline is "no answer".
  const usedUp = context.elapsedMs !== undefined && context.elapsedMs >= context.timeoutMs - 50;
  const ourDeadline = context.elapsedMs === undefined || usedUp;
  // gRPC hands our deadline to the runtime, whose copy expires at the same moment, and its
  // answer may reach us before our own timer: containerd 2 and CRI-O end the call with
  // CANCELLED, containerd 1.6 may answer with whatever its expired context broke (UNKNOWN
  // "failed to kill exec …: context deadline exceeded"). With nobody cancelling, once the
  // deadline is used up, that is our deadline.
  const runtimeGaveUp =
    usedUp &&
    context.aborted !== true &&
    (error.code === GrpcStatus.CANCELLED ||
      /\bcontext (deadline exceeded|canceled)\b/.test(details));
  if ((error.code === GrpcStatus.DEADLINE_EXCEEDED && ourDeadline) || runtimeGaveUp) {
    return new AppError(
      {
        code: 'deadline-exceeded',
        message: `The runtime at ${socketPath} did not answer ${method} within ${formatSeconds(context.timeoutMs)}.`,
        detail: details,
        hint: 'The runtime may be overloaded or hung; try again, or raise the timeout in the node settings.',
      },
      { cause: error },
    );
  }
  if (error.code === GrpcStatus.UNIMPLEMENTED) {
    return new AppError(
      {
        code: 'unimplemented',
        message: `This runtime does not implement ${method}.`,
        detail: details,
      },
      { cause: error },
    );
  }
  if (error.code === GrpcStatus.CANCELLED) {
    return new AppError(
      { code: 'cancelled', message: `${method} was cancelled.`, detail: details },
      { cause: error },
    );
  }
  const code = codeByGrpcStatus[error.code as GrpcStatus] ?? 'unknown';
  // For the remaining codes the runtime's own text is the most precise message there is
  // ("container "abc" not found", "tty and stderr cannot both be true").
  return new AppError(
    {
      code,
      message: sentence(details) || `${method} failed (${GrpcStatus[error.code] ?? error.code}).`,
      detail: `${method}: ${GrpcStatus[error.code] ?? error.code}`,
    },
    { cause: error },
  );
}

function socketError(errno: string, socketPath: string, details: string, cause: Error): AppError {
  switch (errno) {
    case 'ENOENT':
      return new AppError(
        {
          code: 'unavailable',
          message: `No runtime is listening at ${socketPath}.`,
          detail: details,
          hint: 'Check the socket path, and that the runtime (containerd, CRI-O…) is running.',
        },
        { cause },
      );
    case 'ECONNREFUSED':
      return new AppError(
        {
          code: 'unavailable',
          message: `The socket ${socketPath} exists but nothing accepts connections on it.`,
          detail: details,
          hint: 'The runtime has probably stopped or crashed; restart it.',
        },
        { cause },
      );
    case 'EACCES':
    case 'EPERM':
      return new AppError(
        {
          code: 'permission-denied',
          message: `Permission denied opening ${socketPath}.`,
          detail: details,
          hint: `Your user may not open the runtime socket. Check its owner with "ls -l ${socketPath}", then add your user to its group, or run Porthole with enough rights.`,
        },
        { cause },
      );
    case 'ENOTSOCK':
      return new AppError(
        {
          code: 'invalid-argument',
          message: `${socketPath} is not a socket.`,
          detail: details,
          hint: 'Point Porthole at the runtime socket itself.',
        },
        { cause },
      );
    default:
      return new AppError(
        {
          code: 'unavailable',
          message: `Could not connect to ${socketPath} (${errno}).`,
          detail: details,
        },
        { cause },
      );
  }
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** Runtime messages are lower-case fragments ("container ... not found"); make them a sentence. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const capitalised = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
