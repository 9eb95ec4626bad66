import { describe, expect, it } from 'vitest';
import { formatAddress, listenError, remoteConnectionError } from './errors';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`listen ${code}`), { code });
}

describe('listenError', () => {
  it('tells a port in use from a port not allowed', () => {
    expect(listenError(errno('EADDRINUSE'), '::1', 8080)).toMatchObject({
      code: 'already-exists',
      message: 'Local port 8080 is already in use on ::1.',
      detail: expect.stringContaining('[::1]:8080') as string,
    });
    expect(listenError(errno('EACCES'), '127.0.0.1', 80)).toMatchObject({
      code: 'permission-denied',
      message: 'Porthole is not allowed to listen on 127.0.0.1:80.',
      hint: expect.stringContaining('below 1024') as string,
    });
  });

  it('keeps anything else as unavailable, with the errno', () => {
    expect(listenError(errno('EMFILE'), '127.0.0.1', 9000)).toMatchObject({
      code: 'unavailable',
      detail: expect.stringContaining('EMFILE') as string,
    });
  });
});

describe('remoteConnectionError', () => {
  it("keeps the runtime's words and says what they mean", () => {
    const text =
      'error forwarding port 8081 to pod abc, uid : failed to execute portforward in network namespace "/x": failed to connect to localhost:8081 inside namespace "abc", IPv4: dial tcp4 127.0.0.1:8081: connect: connection refused';
    expect(remoteConnectionError(text, 8081)).toMatchObject({
      code: 'unavailable',
      message: 'Nothing accepts connections on port 8081 inside the pod.',
      detail: text,
    });
    expect(remoteConnectionError('failed to find sandbox "abc" in store', 80)).toMatchObject({
      code: 'not-found',
      message: 'The runtime could not connect to port 80 inside the pod.',
    });
  });
});

describe('formatAddress', () => {
  it('brackets IPv6', () => {
    expect(formatAddress('::1', 80)).toBe('[::1]:80');
    expect(formatAddress('127.0.0.1', 80)).toBe('127.0.0.1:80');
  });
});
