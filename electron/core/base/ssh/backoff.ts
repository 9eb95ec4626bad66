/**
 * Reconnect delays: exponential, capped, with jitter so that many nodes dropped by one
 * network blip don't all knock on their bastion at the same instant.
 */
export interface BackoffOptions {
  /** Delay before the first retry. */
  readonly initialDelayMs: number;
  /** No delay is longer than this. */
  readonly maxDelayMs: number;
  readonly factor: number;
  /** ± this fraction of each delay is random (0.2 → 80 %–120 %). */
  readonly jitter: number;
  /** Retries before giving up (the state becomes disconnected). */
  readonly maxAttempts: number;
}

export const defaultBackoff: BackoffOptions = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  factor: 2,
  jitter: 0.2,
  // ≈ 10 minutes of trying with the defaults above.
  maxAttempts: 25,
};

/** The delay before retry number `attempt` (1-based). */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const base = Math.min(
    options.maxDelayMs,
    options.initialDelayMs * options.factor ** Math.max(0, attempt - 1),
  );
  const spread = base * options.jitter * (2 * random() - 1);
  return Math.max(0, Math.min(options.maxDelayMs, Math.round(base + spread)));
}
