import { describe, expect, it, vi } from 'vitest';
import { terminalFlow } from '../../../../shared/model';
import { AckBatcher, inputBytes, inputPieces, maxInputPiece } from './flow';

describe('AckBatcher', () => {
  it('acknowledges only whole batches, whenever xterm parses them', () => {
    const send = vi.fn();
    const acks = new AckBatcher(send, 16 * 1024);
    const callbacks = Array.from({ length: 10 }, () => acks.track(4096));
    for (const done of callbacks.slice(0, 9)) done();
    // 9 × 4 KiB parsed: two batches of 16 KiB, 4 KiB pending.
    expect(send.mock.calls).toEqual([[16384], [16384]]);
    expect(acks.pending).toBe(4096);
    callbacks[9]?.();
    // xterm is idle now, and 8 KiB stay unacknowledged: less than a batch is never sent.
    expect(send.mock.calls).toEqual([[16384], [16384]]);
    expect(acks.pending).toBe(8192);
  });

  it('sends several batches at once as one acknowledgement', () => {
    const send = vi.fn();
    const acks = new AckBatcher(send, 1000);
    acks.track(2500)();
    expect(send.mock.calls).toEqual([[2000]]);
    expect(acks.pending).toBe(500);
  });

  it('never acknowledges an echo', () => {
    const send = vi.fn();
    const acks = new AckBatcher(send);
    for (let key = 0; key < 100; key += 1) acks.track(1)();
    expect(send).not.toHaveBeenCalled();
  });

  it('counts a callback once even if called twice', () => {
    const send = vi.fn();
    const acks = new AckBatcher(send, 10);
    const done = acks.track(10);
    done();
    done();
    expect(send).toHaveBeenCalledExactlyOnceWith(10);
  });

  it('refuses a batch larger than the low watermark, which could stall the output', () => {
    expect(() => new AckBatcher(vi.fn(), terminalFlow.lowWatermark + 1)).toThrow(RangeError);
    expect(terminalFlow.ackBatchBytes).toBeLessThanOrEqual(terminalFlow.lowWatermark);
    expect(terminalFlow.lowWatermark).toBeLessThan(terminalFlow.highWatermark);
  });
});

describe('input bytes', () => {
  it('encodes typed text as UTF-8 and mouse reports one byte per character', () => {
    expect([...inputBytes('é€', 'utf8')]).toEqual([0xc3, 0xa9, 0xe2, 0x82, 0xac]);
    expect([...inputBytes('\x1b[M\xff', 'binary')]).toEqual([0x1b, 0x5b, 0x4d, 0xff]);
  });

  it('splits a long paste into pieces with buffers of their own', () => {
    const paste = inputBytes('x'.repeat(maxInputPiece * 2 + 5), 'utf8');
    const pieces = inputPieces(paste);
    expect(pieces.map((piece) => piece.length)).toEqual([maxInputPiece, maxInputPiece, 5]);
    // A structured clone of a piece copies that piece, not the whole paste.
    for (const piece of pieces) expect(piece.buffer.byteLength).toBe(piece.length);
    const short = inputBytes('ls', 'utf8');
    expect(inputPieces(short)).toEqual([short]);
  });
});
