import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame } from './frames';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('RPC frames', () => {
  it('sends a message without payloads as one JSON text frame', () => {
    const message = { type: 'call', id: 1, service: 'nodes', method: 'list', args: [] };
    const frame = encodeFrame(message);
    expect(typeof frame).toBe('string');
    expect(decodeFrame(frame)).toEqual(message);
  });

  it('sends payloads as raw bytes after a small JSON header', () => {
    const data = new Uint8Array(1000).map((_, index) => index % 256);
    const message = { type: 'event', id: 7, payload: { type: 'output', stream: 'stdout', data } };
    const frame = encodeFrame(message);
    expect(frame).toBeInstanceOf(Uint8Array);
    const binary = frame as Uint8Array;
    // The bytes are there as they are, not as base64 or a JSON array of numbers.
    expect(binary.byteLength).toBeLessThan(data.byteLength + 120);
    expect([...binary.subarray(binary.byteLength - 1000)]).toEqual([...data]);
    const decoded = decodeFrame(binary) as typeof message;
    expect(decoded.payload.data).toBeInstanceOf(Uint8Array);
    expect([...decoded.payload.data]).toEqual([...data]);
    expect({ ...decoded, payload: { ...decoded.payload, data: 'x' } }).toEqual({
      ...message,
      payload: { ...message.payload, data: 'x' },
    });
  });

  it('carries several payloads, a Buffer and views into larger buffers among them', () => {
    const big = bytes(9, 9, 1, 2, 3, 9);
    const message = {
      type: 'notify',
      service: 'terminals',
      method: 'write',
      args: ['t1', big.subarray(2, 5), Buffer.from('hé'), new Uint8Array(0)],
    };
    const decoded = decodeFrame(encodeFrame(message)) as { args: unknown[] };
    expect(decoded.args.map((arg) => (arg instanceof Uint8Array ? [...arg] : arg))).toEqual([
      't1',
      [1, 2, 3],
      [0x68, 0xc3, 0xa9],
      [],
    ]);
  });

  it('refuses malformed binary frames', () => {
    const good = encodeFrame({ args: [bytes(1, 2, 3)] }) as Uint8Array;
    expect(() => decodeFrame(good.subarray(0, 3))).toThrow(/shorter/);
    expect(() => decodeFrame(good.subarray(0, good.byteLength - 1))).toThrow(/overruns/);
    const longer = new Uint8Array(good.byteLength + 1);
    longer.set(good);
    expect(() => decodeFrame(longer)).toThrow(/no payload claims/);
    const header = new TextEncoder().encode('{"b":[1],"m":{"args":[{"$bytes":3}]}}');
    const frame = new Uint8Array(4 + header.byteLength + 1);
    new DataView(frame.buffer).setUint32(0, header.byteLength);
    frame.set(header, 4);
    expect(() => decodeFrame(frame)).toThrow(/reference/);
    const huge = new Uint8Array(8);
    new DataView(huge.buffer).setUint32(0, 0xffffffff);
    expect(() => decodeFrame(huge)).toThrow(/overruns/);
  });

  it('leaves a "$bytes" key alone where no payload can be', () => {
    const message = { type: 'result', id: 1, value: { $bytes: 0 }, args: 1 };
    expect(decodeFrame(encodeFrame(message))).toEqual(message);
    const framed = encodeFrame({ args: [bytes(1)], value: { $bytes: 7 } });
    expect(decodeFrame(framed)).toMatchObject({ value: { $bytes: 7 } });
  });
});
