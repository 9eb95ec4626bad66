import { AppError } from '../../../shared/errors';

/**
 * Arguments arrive from a page over a wire: the types in the contract are a promise the
 * caller made, not a guarantee. Each service checks what it relies on.
 */
export function requireString(value: unknown, name: string, maxLength = 4096): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AppError({
      code: 'invalid-argument',
      message: `${name} must be a non-empty string.`,
    });
  }
  if (value.length > maxLength) {
    throw new AppError({ code: 'invalid-argument', message: `${name} is too long.` });
  }
  return value;
}

export function requireNonNegativeInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new AppError({
      code: 'invalid-argument',
      message: `${name} must be a whole number ≥ 0.`,
    });
  }
  return value;
}

export function requireObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError({ code: 'invalid-argument', message: `${name} must be an object.` });
  }
  return value as Record<string, unknown>;
}
