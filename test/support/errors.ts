import { expect } from 'vitest';
import { AppError } from '../../shared/errors';

/** Awaits a promise that must fail with an AppError, and returns the error to inspect. */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the promise to reject');
}
