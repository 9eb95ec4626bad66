import { describe, expect, it } from 'vitest';
import { toLocalFileError } from './file-errors';

describe('toLocalFileError', () => {
  it('names the path and what to do', () => {
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    expect(toLocalFileError(denied, '/var/log/pods/x/0.log')).toMatchObject({
      code: 'permission-denied',
      message: expect.stringContaining('/var/log/pods/x/0.log') as string,
      hint: expect.stringContaining('root') as string,
    });
    const missing = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    expect(toLocalFileError(missing, '/x.log').code).toBe('not-found');
  });
});
