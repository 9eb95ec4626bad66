import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { RemoteCommandResult } from '../../base/streaming';
import { closedEnding, containerCheck, describeEnding } from './exit-reason';

const exec = { kind: 'exec' as const, command: ['sh'] };
const attach = { kind: 'attach' as const, command: [] };

function result(overrides: Partial<RemoteCommandResult>): { result: RemoteCommandResult } {
  return {
    result: {
      reason: 'Success',
      message: '',
      negotiated: { transport: 'spdy', protocol: 'v4.channel.k8s.io' },
      attempts: [],
      ...overrides,
    },
  };
}

describe('how a terminal ended', () => {
  it('gives the exit code of exec, without asking the container', () => {
    const outcome = result({ exitCode: 3, reason: 'NonZeroExitCode' });
    expect(containerCheck('exec', outcome)).toBe('none');
    expect(describeEnding(exec, outcome)).toEqual({
      event: { type: 'exit', exitCode: 3, reason: 'Exited with code 3.' },
      session: { state: 'ended', reason: 'Exited with code 3.', exitCode: 3 },
    });
  });

  it('blames a stopped container for a killed command, after a patient look', () => {
    const outcome = result({ exitCode: 137, reason: 'NonZeroExitCode' });
    expect(containerCheck('exec', outcome)).toBe('settle');
    expect(describeEnding(exec, outcome, { state: 'exited', exitCode: 137 }).event).toEqual({
      type: 'exit',
      exitCode: 137,
      reason: 'The container was stopped (exit code 137); the session ended with it.',
      container: 'stopped',
    });
    expect(describeEnding(exec, outcome, { state: 'running' }).event.reason).toBe(
      'Exited with code 137.',
    );
  });

  it('looks patiently when CRI-O says the command was killed, and blames the stopped container', () => {
    const message = 'Internal error occurred: error executing command in container: signal: killed';
    const outcome = result({ reason: 'InternalError', message });
    expect(containerCheck('exec', outcome)).toBe('settle');
    expect(describeEnding(exec, outcome, { state: 'exited', exitCode: 137 }).event).toEqual({
      type: 'exit',
      reason: 'The container was stopped (exit code 137); the session ended with it.',
      container: 'stopped',
    });
  });

  it('says in a sentence that the program does not exist, with the runtime’s words as detail', () => {
    const message =
      'Internal error occurred: error executing command in container: failed to exec in container: OCI runtime exec failed: exec: "nope": executable file not found in $PATH';
    const outcome = result({ reason: 'InternalError', message });
    expect(containerCheck('exec', outcome)).toBe('once');
    const ending = describeEnding({ kind: 'exec', command: ['nope'] }, outcome);
    expect(ending.event).toEqual({
      type: 'exit',
      reason: 'nope was not found in the container.',
      error: expect.objectContaining({ code: 'not-found', detail: message }) as unknown,
    });
    expect(ending.session.state).toBe('failed');
  });

  it('tells a lost connection from a removed container', () => {
    const lost = { error: new AppError({ code: 'connection-lost', message: 'socket closed' }) };
    expect(describeEnding(exec, lost).event).toMatchObject({
      reason:
        'The connection to the node was lost. The process may still be running in the container.',
      error: { code: 'connection-lost', message: 'socket closed' },
      mayStillRun: true,
    });
    // Attach has no process of its own to leave behind.
    expect(describeEnding(attach, lost).event).toMatchObject({
      reason: 'The connection to the node was lost.',
    });
    expect(describeEnding(attach, lost).event.mayStillRun).toBeUndefined();
    expect(describeEnding(exec, lost, { state: 'gone' }).event).toEqual({
      type: 'exit',
      reason: 'The container was removed.',
      container: 'removed',
    });
  });

  it('describes an attach ending by the container', () => {
    const outcome = result({});
    expect(containerCheck('attach', outcome)).toBe('settle');
    expect(describeEnding(attach, outcome, { state: 'exited', exitCode: 0 }).event.reason).toBe(
      'The container exited (exit code 0).',
    );
    expect(describeEnding(attach, outcome, { state: 'running' }).event.reason).toBe(
      'The container closed its output.',
    );
  });

  it('names who closed it', () => {
    expect(closedEnding('monitor').event.reason).toBe(
      'The session was ended from the session monitor.',
    );
  });
});
