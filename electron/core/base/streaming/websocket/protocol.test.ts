import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors';
import { decodeMessage, encodeClose, encodeMessage } from './protocol';

const binary = { base64: false };
const base64 = { base64: true };

function protocolError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('protocol-error');
    return error as AppError;
  }
  throw new Error('expected a protocol error');
}

describe('channel messages', () => {
  it('encodes and decodes binary messages with the channel byte first', () => {
    const message = encodeMessage(1, Buffer.from('hi'), binary);
    expect(message).toEqual(Buffer.from([1, 0x68, 0x69]));
    expect(decodeMessage(message as Buffer, true, binary)).toEqual({
      channel: 1,
      payload: Buffer.from('hi'),
    });
  });

  it('encodes base64 messages as an ASCII digit and padded base64', () => {
    expect(encodeMessage(0, Buffer.from('hi'), base64)).toBe('0aGk=');
    expect(decodeMessage(Buffer.from('2aGk='), false, base64)).toEqual({
      channel: 2,
      payload: Buffer.from('hi'),
    });
  });

  it('accepts the empty first message on a channel', () => {
    expect(decodeMessage(Buffer.from([1]), true, binary).payload.length).toBe(0);
    expect(decodeMessage(Buffer.from('1'), false, base64).payload.length).toBe(0);
  });

  it('rejects malformed messages with a protocol error', () => {
    protocolError(() => decodeMessage(Buffer.alloc(0), true, binary));
    protocolError(() => decodeMessage(Buffer.from('1abc'), false, binary));
    protocolError(() => decodeMessage(Buffer.from([1, 2]), true, base64));
    protocolError(() => decodeMessage(Buffer.from('x aGk='), false, base64));
    protocolError(() => decodeMessage(Buffer.from('1a*Gk'), false, base64));
  });

  it('encodes the v5 CLOSE signal', () => {
    expect(encodeClose(0)).toEqual(Buffer.from([0xff, 0x00]));
  });
});
