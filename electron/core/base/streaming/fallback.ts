/**
 * One fallback rule for exec, attach and port-forward, by composition as client-go's
 * FallbackExecutor(primary, secondary, shouldFallback): try the primary; when it fails in a
 * way the predicate accepts, try the secondary. Each attempt calls the CRI RPC itself,
 * because stream URLs are single use — even a refused one is spent.
 */
import { AppError } from '../../../../shared/errors';
import { isRefusedUpgrade } from './upgrade';

/** `secondary` learns why the primary failed (to tell the user why it fell back). */
export function withFallback<T>(
  primary: () => Promise<T>,
  secondary: (primaryError: unknown) => Promise<T>,
  predicate: (error: unknown) => boolean = shouldFallback,
): () => Promise<T> {
  return async () => {
    try {
      return await primary();
    } catch (error) {
      if (!predicate(error)) throw error;
      return secondary(error);
    }
  };
}

/**
 * The negotiated protocol works but can't give the session what it needs (stdin EOF for
 * piped input, resize for a terminal). Under `auto` the next transport is tried.
 */
export class UnmetRequirementError extends AppError {
  constructor(message: string, detail?: string) {
    super({
      code: 'failed-precondition',
      message,
      ...(detail !== undefined && { detail }),
      hint: 'Pick a transport explicitly to accept the limitation.',
    });
    this.name = 'UnmetRequirementError';
  }
}

/**
 * Fall back when the server answered the upgrade and refused it (403: no common protocol,
 * 404: URL expired or used, any other non-101, or a 101 that is not the switch asked for):
 * the other transport may be spoken. Or when the negotiated protocol can't serve the
 * session. Not when the server was unreachable, TLS failed, the setup timed out or was
 * cancelled, nor on RPC errors (the container isn't running): the other transport goes to
 * the same server and would fail the same way.
 */
export function shouldFallback(error: unknown): boolean {
  return isRefusedUpgrade(error) || error instanceof UnmetRequirementError;
}
