import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { shouldFallback, UnmetRequirementError, withFallback } from './fallback';
import { UpgradeError } from './upgrade';

const upgradeError = (status: number | undefined, code: AppError['code']): UpgradeError =>
  new UpgradeError({ code, message: 'x', status, body: '', offered: [] });

describe('fallback', () => {
  it('falls back on refused upgrades and unmet requirements only', () => {
    expect(shouldFallback(upgradeError(403, 'failed-precondition'))).toBe(true);
    expect(shouldFallback(upgradeError(404, 'not-found'))).toBe(true);
    expect(shouldFallback(upgradeError(400, 'failed-precondition'))).toBe(true);
    expect(shouldFallback(new UnmetRequirementError('no stdin EOF'))).toBe(true);
    // No answer from the server: the other transport would hit the same wall.
    expect(shouldFallback(upgradeError(undefined, 'unavailable'))).toBe(false);
    expect(shouldFallback(upgradeError(undefined, 'deadline-exceeded'))).toBe(false);
    expect(shouldFallback(upgradeError(undefined, 'cancelled'))).toBe(false);
    expect(shouldFallback(new AppError({ code: 'not-found', message: 'no container' }))).toBe(
      false,
    );
    expect(shouldFallback(new Error('boom'))).toBe(false);
  });

  it('composes attempts: the secondary runs only when the predicate allows', async () => {
    const streams = { kind: 'streams' };
    const calls: string[] = [];
    const failing = (error: unknown) => () => {
      calls.push('primary');
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    };
    const secondary = () => {
      calls.push('secondary');
      return Promise.resolve(streams);
    };
    await expect(
      withFallback(failing(upgradeError(403, 'failed-precondition')), secondary, shouldFallback)(),
    ).resolves.toBe(streams);
    expect(calls).toEqual(['primary', 'secondary']);
    calls.length = 0;
    await expect(
      withFallback(failing(upgradeError(undefined, 'unavailable')), secondary, shouldFallback)(),
    ).rejects.toMatchObject({ code: 'unavailable' });
    expect(calls).toEqual(['primary']);
  });
});
