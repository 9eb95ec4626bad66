import { describe, expect, it, vi } from 'vitest';
import { AckBatcher, InputQueue, maxInputPiece } from './flow';

describe('AckBatcher', () => {
  it('acknowledges once the write queue drains, with the bytes the core sent', () => {
    const send = vi.fn();
    const acks = new AckBatcher(send, 16 * 1024);
    const first = acks.track(100);
    const second = acks.track(200);
    first();
    expect(send).not.toHaveBeenCalled(); // the second write is still queued in xterm
    second();
    expect(send).toHaveBeenCalledExactlyOnceWith(300);
  });

  it('acknowledges in batches of at least 16 KiB while xterm is behind', () => {
    const send = vi.fn();
    const acks = new AckBatcher(send, 16 * 1024);
    const callbacks = Array.from({ length: 10 }, () => acks.track(4096));
    for (const done of callbacks.slice(0, 9)) done();
    // 9 × 4 KiB parsed, one write still queued: two batches of 16 KiB, 4 KiB pending.
    expect(send.mock.calls).toEqual([[16384], [16384]]);
    expect(acks.pending).toBe(4096);
    callbacks[9]?.();
    expect(send.mock.calls).toEqual([[16384], [16384], [8192]]);
    expect(acks.pending).toBe(0);
  });

  it('counts a callback once even if called twice', () => {
    const send = vi.fn();
    const acks = new AckBatcher(send);
    const done = acks.track(10);
    done();
    done();
    expect(send).toHaveBeenCalledExactlyOnceWith(10);
  });
});

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('InputQueue', () => {
  it('sends a keystroke at once, and what is typed meanwhile together, in order', async () => {
    const calls: [string, string][] = [];
    const pending: ReturnType<typeof deferred>[] = [];
    const queue = new InputQueue((data, encoding) => {
      calls.push([data, encoding]);
      const next = deferred();
      pending.push(next);
      return next.promise;
    }, vi.fn());
    queue.push('l');
    queue.push('s');
    queue.push(' ');
    queue.push('\x1b[M !!', 'binary');
    queue.push('\r');
    expect(calls).toEqual([['l', 'utf8']]); // one call in flight
    pending[0]?.resolve();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toEqual(['s ', 'utf8']);
    pending[1]?.resolve();
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(calls[2]).toEqual(['\x1b[M !!', 'binary']);
    pending[2]?.resolve();
    await vi.waitFor(() => expect(calls).toHaveLength(4));
    expect(calls[3]).toEqual(['\r', 'utf8']);
  });

  it('sends a long paste in pieces an RPC message can carry, never splitting a character', async () => {
    const pieces: string[] = [];
    const queue = new InputQueue((data) => {
      pieces.push(data);
      return Promise.resolve();
    }, vi.fn());
    // An emoji (two UTF-16 units) straddles the first piece boundary.
    const paste = `${'a'.repeat(maxInputPiece - 1)}😀${'b'.repeat(150_000)}`;
    queue.push(paste);
    await vi.waitFor(() => expect(pieces.join('')).toBe(paste));
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(maxInputPiece);
      // No lone surrogate at either end.
      expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
  });

  it('reports a refused write and goes on with the next input', async () => {
    const onError = vi.fn();
    const send = vi
      .fn<(data: string) => Promise<void>>()
      .mockRejectedValueOnce(new Error('gone'))
      .mockResolvedValue(undefined);
    const queue = new InputQueue(send, onError);
    queue.push('a');
    await vi.waitFor(() => expect(onError).toHaveBeenCalledOnce());
    queue.push('b');
    await vi.waitFor(() => expect(send).toHaveBeenCalledTimes(2));
    expect(send.mock.calls[1]?.[0]).toBe('b');
  });

  it('drops queued input and refuses more once stopped', async () => {
    const first = deferred();
    const send = vi.fn(() => first.promise);
    const queue = new InputQueue(send, vi.fn());
    queue.push('a');
    queue.push('b');
    queue.stop();
    queue.push('c');
    first.resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(send).toHaveBeenCalledOnce();
  });
});
