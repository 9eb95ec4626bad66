import type { SessionAttempt } from '../../../../shared/model';
import type { AttemptRecord } from '../../base/streaming';

/** The streaming engine's attempt records as the monitor shows them. */
export function toSessionAttempts(attempts: readonly AttemptRecord[]): SessionAttempt[] {
  return attempts.map((attempt) => ({
    transport: attempt.transport,
    outcome: attempt.outcome,
    protocolsOffered: attempt.protocolsOffered,
    ...(attempt.status !== undefined && { status: attempt.status }),
    ...(attempt.message !== undefined && { message: attempt.message }),
    durationMs: attempt.durationMs,
  }));
}
