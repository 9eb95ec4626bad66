/**
 * Fallback by composition, as client-go's FallbackExecutor(primary, secondary,
 * shouldFallback): try the primary; when it fails in a way the predicate accepts, try the
 * secondary. Each attempt calls the CRI RPC itself, because stream URLs are single use.
 */
import { AppError } from '../../../../../shared/errors';
import { isUpgradeFailure } from '../spdy';
import type { RemoteStreams } from './streams';

export type Attempt = () => Promise<RemoteStreams>;

export function withFallback(
  primary: Attempt,
  secondary: Attempt,
  shouldFallback: (error: unknown) => boolean,
): Attempt {
  return async () => {
    try {
      return await primary();
    } catch (error) {
      if (!shouldFallback(error)) throw error;
      return secondary();
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

/** The server answered the upgrade with something other than a switch (403, 404, 400…). */
export function isRefusedUpgrade(error: unknown): boolean {
  return isUpgradeFailure(error) && error.status !== undefined;
}

/**
 * Fall back when the server refused the upgrade (403: no common protocol, 404: URL
 * expired or used, other non-101 answers: transport not spoken) or the negotiated
 * protocol can't serve the session. Not when the server was unreachable, TLS failed, the
 * setup timed out or was cancelled, nor on RPC errors (the container isn't running):
 * the other transport goes to the same server and would fail the same way.
 */
export function shouldFallback(error: unknown): boolean {
  return isRefusedUpgrade(error) || error instanceof UnmetRequirementError;
}
