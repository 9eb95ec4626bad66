import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors';
import { decodeStatus } from './status';

const decode = (value: unknown): ReturnType<typeof decodeStatus> =>
  decodeStatus(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)));

function garbage(value: unknown): AppError {
  try {
    decode(value);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('protocol-error');
    return error as AppError;
  }
  throw new Error('expected a protocol error');
}

const failure = (causes: unknown): Record<string, unknown> => ({
  status: 'Failure',
  reason: 'NonZeroExitCode',
  message: 'command terminated with non-zero exit code: exit code 3',
  details: { causes },
});

describe('decodeStatus', () => {
  it('reads success, with or without metadata', () => {
    expect(decode({ status: 'Success' })).toEqual({ exitCode: 0, reason: 'Success', message: '' });
    expect(decode({ metadata: {}, status: 'Success' })).toMatchObject({ exitCode: 0 });
  });

  it('takes the exit code from the ExitCode cause', () => {
    expect(decode(failure([{ reason: 'ExitCode', message: '3' }]))).toEqual({
      exitCode: 3,
      reason: 'NonZeroExitCode',
      message: 'command terminated with non-zero exit code: exit code 3',
    });
    expect(
      decode(
        failure([
          { reason: 'Other', message: 'x' },
          { reason: 'ExitCode', message: '137' },
        ]),
      ).exitCode,
    ).toBe(137);
  });

  it('reports other failures without an exit code', () => {
    expect(decode({ status: 'Failure', reason: 'InternalError', message: 'boom' })).toEqual({
      reason: 'InternalError',
      message: 'boom',
    });
  });

  it('rejects garbage with a protocol error', () => {
    expect(garbage('{not json').message).toMatch(/unreadable command status \(not JSON\)/);
    garbage('[]');
    garbage('"Success"');
    garbage({ status: 'Maybe' });
    garbage(failure([{ reason: 'ExitCode', message: 'three' }]));
    garbage(failure([{ reason: 'ExitCode', message: '256' }]));
    garbage(failure([{ reason: 'ExitCode', message: '-1' }]));
    garbage(failure('nope'));
    garbage(failure([]));
    garbage({ status: 'Failure', details: 'x' });
  });
});
