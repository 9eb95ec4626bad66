import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret for one host run: 32 random bytes, URL-safe. */
export function createToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Compares a presented token with the secret in constant time. Both are hashed first so
 * that neither the comparison nor an early length check reveals anything about the secret.
 */
export function tokenMatches(presented: string | null | undefined, secret: string): boolean {
  if (presented === null || presented === undefined) return false;
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(secret, 'utf8').digest();
  return timingSafeEqual(a, b);
}
