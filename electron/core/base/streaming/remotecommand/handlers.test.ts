import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors';
import { handlerFor, offeredProtocols } from './handlers';

const bytes = (text: string): Buffer => Buffer.from(text);

describe('protocol handlers', () => {
  it('picks one handler per negotiated protocol and transport', () => {
    const versions = (transport: 'spdy' | 'websocket'): number[] =>
      offeredProtocols[transport].map((p) => handlerFor(transport, p).version);
    expect(versions('spdy')).toEqual([5, 4, 3, 2, 1]);
    // The unversioned WebSocket protocols behave as v3 (plain text errors, resize).
    expect(versions('websocket')).toEqual([5, 4, 4, 3, 3]);
  });

  it('refuses a protocol that was never offered', () => {
    expect(() => handlerFor('spdy', 'v9.channel.k8s.io')).toThrow(AppError);
    expect(() => handlerFor('websocket', '')).toThrow(/does not speak/);
  });

  it('adds features version by version', () => {
    const spdy = (p: string) => handlerFor('spdy', p);
    expect(spdy('channel.k8s.io')).toMatchObject({ supportsResize: false, statusRequired: false });
    expect(spdy('v2.channel.k8s.io').supportsResize).toBe(false);
    expect(spdy('v3.channel.k8s.io').supportsResize).toBe(true);
    expect(spdy('v4.channel.k8s.io')).toMatchObject({
      supportsResize: true,
      statusRequired: true,
      supportsCloseSignal: false,
    });
    expect(handlerFor('websocket', 'v5.channel.k8s.io').supportsCloseSignal).toBe(true);
  });

  it('interprets the error channel per version', () => {
    expect(handlerFor('spdy', 'channel.k8s.io').interpret(bytes('ignored'))).toMatchObject({
      reason: 'Unknown',
    });
    const v2 = handlerFor('spdy', 'v2.channel.k8s.io');
    expect(v2.interpret(bytes(''))).toEqual({ reason: 'Success', message: '' });
    expect(v2.interpret(bytes('command terminated\n'))).toEqual({
      reason: 'Failure',
      message: 'command terminated',
    });
    const v4 = handlerFor('spdy', 'v4.channel.k8s.io');
    expect(v4.interpret(bytes('{"status":"Success"}'))).toMatchObject({ exitCode: 0 });
    const missing = v4.interpret(bytes(''));
    expect(missing).toBeInstanceOf(AppError);
    expect((missing as AppError).code).toBe('connection-lost');
    expect((v4.interpret(bytes('{oops')) as AppError).code).toBe('protocol-error');
  });
});
