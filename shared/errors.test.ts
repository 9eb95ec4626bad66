import { describe, expect, it } from 'vitest';
import { AppError, fromAppErrorData, isAppError, toAppErrorData } from './errors';

describe('AppError serialization', () => {
  it('round-trips code, message, detail, hint and step as plain data', () => {
    const error = new AppError({
      code: 'permission-denied',
      message: 'Permission denied opening /run/x.sock.',
      detail: 'connect EACCES',
      hint: 'Join the socket group.',
      step: 'pull:0',
    });
    const wire = JSON.parse(JSON.stringify(error)) as unknown;
    const back = fromAppErrorData(wire);
    expect(isAppError(back)).toBe(true);
    expect(toAppErrorData(back)).toEqual(toAppErrorData(error));
    expect(back.step).toBe('pull:0');
  });

  it('turns foreign errors into internal errors without losing their message', () => {
    expect(toAppErrorData(new TypeError('bad thing'))).toEqual({
      code: 'internal',
      message: 'bad thing',
      detail: 'TypeError',
    });
    expect(toAppErrorData('text')).toMatchObject({ code: 'internal', detail: 'text' });
  });

  it('distrusts wire data: unknown codes become "unknown", junk becomes a generic error', () => {
    expect(fromAppErrorData({ code: 'nope', message: 'm' }).code).toBe('unknown');
    expect(fromAppErrorData(42).message).toBe('Unexpected error');
    expect(fromAppErrorData({ code: 'not-found', message: 5 }).message).toBe('Unexpected error');
  });
});
