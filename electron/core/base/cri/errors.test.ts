import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { toCriError } from './errors';

const context = {
  socketPath: '/run/containerd/containerd.sock',
  method: 'Version',
  timeoutMs: 2000,
};

function serviceError(code: status, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${details}`), {
    code,
    details,
    metadata: new Metadata(),
  });
}

const unavailable = (errno: string): ServiceError =>
  serviceError(
    status.UNAVAILABLE,
    `No connection established. Last error: Error: connect ${errno} ${context.socketPath}. Resolution note: `,
  );

describe('toCriError', () => {
  it('says no runtime is listening when the socket is missing', () => {
    const error = toCriError(unavailable('ENOENT'), context);
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe('No runtime is listening at /run/containerd/containerd.sock.');
    expect(error.detail).toContain('ENOENT');
  });

  it('explains permission problems and how to fix them', () => {
    const error = toCriError(unavailable('EACCES'), context);
    expect(error.code).toBe('permission-denied');
    expect(error.hint).toContain('ls -l /run/containerd/containerd.sock');
  });

  it('tells a stale socket from a missing one', () => {
    const error = toCriError(unavailable('ECONNREFUSED'), context);
    expect(error.message).toContain('nothing accepts connections');
  });

  it('names the method and the deadline on a timeout', () => {
    const error = toCriError(serviceError(status.DEADLINE_EXCEEDED, 'Deadline exceeded'), context);
    expect(error.code).toBe('deadline-exceeded');
    expect(error.message).toContain('did not answer Version within 2 s');
  });

  it('takes a CANCELLED that came when our deadline passed for the timeout it is (CRI-O)', () => {
    const late = { ...context, method: 'ExecSync', timeoutMs: 300, elapsedMs: 301 };
    const cancelled = serviceError(status.CANCELLED, 'context canceled');
    expect(toCriError(cancelled, { ...late, aborted: false })).toMatchObject({
      code: 'deadline-exceeded',
      message:
        'The runtime at /run/containerd/containerd.sock did not answer ExecSync within 0.3 s.',
    });
    // Cancelled by the caller, or early: a cancellation.
    expect(toCriError(cancelled, { ...late, aborted: true }).code).toBe('cancelled');
    expect(toCriError(cancelled, { ...late, elapsedMs: 20, aborted: false }).code).toBe(
      'cancelled',
    );
  });

  it("keeps the runtime's own words for not-found and invalid-argument", () => {
    const notFound = toCriError(
      serviceError(
        status.NOT_FOUND,
        'an error occurred when try to find container "nope": not found',
      ),
      { ...context, method: 'ContainerStatus' },
    );
    expect(notFound.code).toBe('not-found');
    expect(notFound.message).toMatch(/^An error occurred .*not found\.$/);
    expect(notFound.detail).toBe('ContainerStatus: NOT_FOUND');
  });

  it('reports our deadline when the runtime reset the call as it expired', () => {
    // What grpc-js says when the runtime's copy of the deadline fires before ours.
    const reset = serviceError(status.CANCELLED, 'Call cancelled');
    const expired = toCriError(reset, { ...context, method: 'ExecSync', elapsedMs: 2_004 });
    expect(expired.code).toBe('deadline-exceeded');
    expect(expired.message).toContain('did not answer ExecSync within 2 s');
    // Cancelled by the caller, or before the deadline: a cancel.
    const aborted = { ...context, elapsedMs: 2_004, aborted: true };
    expect(toCriError(reset, aborted).code).toBe('cancelled');
    expect(toCriError(reset, { ...context, elapsedMs: 300 }).code).toBe('cancelled');
    // containerd 1.6's words for the same race.
    const broken = serviceError(
      status.UNKNOWN,
      'failed to exec in container: failed to kill exec "4508": context deadline exceeded: unknown',
    );
    expect(toCriError(broken, { ...context, elapsedMs: 2_038 }).code).toBe('deadline-exceeded');
    expect(toCriError(broken, { ...context, elapsedMs: 40 }).code).toBe('unknown');
  });

  it("keeps the runtime's words when the runtime itself reports a deadline", () => {
    const error = toCriError(
      serviceError(status.DEADLINE_EXCEEDED, 'failed to exec in container: timeout 1s exceeded'),
      { ...context, method: 'ExecSync', timeoutMs: 16_000, elapsedMs: 1_020 },
    );
    expect(error.code).toBe('deadline-exceeded');
    expect(error.message).toBe('Failed to exec in container: timeout 1s exceeded.');
  });

  it('marks unimplemented methods', () => {
    const error = toCriError(serviceError(status.UNIMPLEMENTED, 'unknown method'), {
      ...context,
      method: 'RuntimeConfig',
    });
    expect(error.code).toBe('unimplemented');
    expect(error.message).toBe('This runtime does not implement RuntimeConfig.');
  });

  it('wraps errors that did not come from gRPC as internal', () => {
    expect(toCriError(new Error('oops'), context)).toMatchObject({
      code: 'internal',
      detail: 'oops',
    });
  });
});
