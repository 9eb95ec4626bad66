import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TerminalEvent } from '../../../../shared/model';
import { OutputFlow, takeBytes, type FlowLimits } from './output-flow';

const limits: FlowLimits = {
  highWatermark: 1000,
  lowWatermark: 100,
  coalesceMs: 4,
  maxEventBytes: 400,
};

function setup(overrides: Partial<FlowLimits> = {}) {
  const calls: string[] = [];
  let delivered = 0;
  const flow = new OutputFlow({
    limits: { ...limits, ...overrides },
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    onExitDelivered: () => delivered++,
  });
  const events: TerminalEvent[] = [];
  const subscribe = (into: TerminalEvent[] = events) => flow.subscribe((e) => into.push(e));
  return { flow, calls, events, subscribe, exitsDelivered: () => delivered };
}

const bytes = (n: number, fill = 'x'): Buffer => Buffer.alloc(n, fill);
const decoded = (events: readonly TerminalEvent[]): string =>
  events.map((e) => (e.type === 'output' ? Buffer.from(e.data).toString() : '|exit')).join('');
const outputBytes = (events: readonly TerminalEvent[]): number =>
  events.reduce((n, e) => n + (e.type === 'output' ? Buffer.from(e.data).length : 0), 0);

describe('OutputFlow', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends a lone chunk at once (a keystroke echo is never delayed)', () => {
    const { flow, events, subscribe } = setup();
    subscribe();
    flow.push('stdout', Buffer.from('h'));
    expect(decoded(events)).toBe('h');
    vi.advanceTimersByTime(10);
    // After a quiet spell the next one goes at once too.
    flow.push('stdout', Buffer.from('i'));
    expect(events).toHaveLength(2);
  });

  it('sends the echo of input at once, even inside the coalescing window', () => {
    const { flow, events, subscribe } = setup();
    subscribe();
    flow.push('stdout', Buffer.from('prompt$ '));
    flow.inputSent();
    flow.push('stdout', Buffer.from('a'));
    expect(decoded(events)).toBe('prompt$ a');
    // Output that answers no input is coalesced again.
    flow.push('stdout', Buffer.from('b'));
    expect(events).toHaveLength(2);
    vi.advanceTimersByTime(4);
    expect(decoded(events)).toBe('prompt$ ab');
  });

  it('coalesces a burst of small chunks into few events', () => {
    const { flow, events, subscribe } = setup();
    subscribe();
    for (let i = 0; i < 50; i++) flow.push('stdout', Buffer.from(`${i % 10}`));
    // The first went at once; the other 49 wait for the coalescing window.
    expect(events).toHaveLength(1);
    vi.advanceTimersByTime(4);
    expect(events).toHaveLength(2);
    expect(decoded(events)).toHaveLength(50);
  });

  it('flushes early once a full event has piled up, and splits large output', () => {
    const { flow, events, subscribe } = setup({ highWatermark: 10_000 });
    subscribe();
    flow.push('stdout', bytes(1));
    flow.push('stdout', bytes(300));
    expect(events).toHaveLength(1);
    flow.push('stdout', bytes(300));
    // 600 pending ≥ 400: sent without waiting, in pieces of at most 400.
    expect(events.map((e) => (e.type === 'output' ? Buffer.from(e.data).length : 0))).toEqual([
      1, 400, 200,
    ]);
  });

  it('keeps stdout and stderr apart and in order', () => {
    const { flow, events, subscribe } = setup();
    subscribe();
    flow.push('stdout', Buffer.from('a'));
    flow.push('stderr', Buffer.from('b'));
    flow.push('stdout', Buffer.from('c'));
    flow.push('stdout', Buffer.from('d'));
    vi.advanceTimersByTime(4);
    expect(events.map((e) => (e.type === 'output' ? e.stream : e.type))).toEqual([
      'stdout',
      'stderr',
      'stdout',
    ]);
    expect(decoded(events)).toBe('abcd');
  });

  it('pauses above the high watermark and resumes only below the low one', () => {
    const { flow, calls, events, subscribe } = setup();
    subscribe();
    for (let i = 0; i < 6; i++) {
      flow.push('stdout', bytes(200));
      vi.advanceTimersByTime(4);
    }
    expect(outputBytes(events)).toBe(1200);
    expect(calls).toEqual(['pause']);
    expect(flow.isPaused).toBe(true);
    flow.ack(1000); // 200 unacknowledged: still above the low watermark
    expect(calls).toEqual(['pause']);
    flow.ack(150); // 50 left
    expect(calls).toEqual(['pause', 'resume']);
    expect(flow.inFlight).toBe(50);
    flow.ack(10_000); // over-acknowledging never goes below zero
    expect(flow.inFlight).toBe(0);
  });

  it('buffers output before the first subscriber, bounded by the watermark', () => {
    const { flow, calls, events, subscribe } = setup();
    flow.push('stdout', Buffer.from('early '));
    flow.push('stderr', Buffer.from('oops '));
    for (let i = 0; i < 10 && !flow.isPaused; i++) flow.push('stdout', bytes(300, 'y'));
    expect(calls).toEqual(['pause']);
    expect(flow.inFlight).toBeLessThanOrEqual(limits.highWatermark + 300);
    vi.advanceTimersByTime(100);
    expect(events).toHaveLength(0);
    subscribe();
    expect(decoded(events).startsWith('early oops yyy')).toBe(true);
    expect(events.map((e) => (e.type === 'output' ? e.stream : '')).slice(0, 2)).toEqual([
      'stdout',
      'stderr',
    ]);
    expect(outputBytes(events)).toBe(flow.inFlight);
    for (const event of events) {
      if (event.type === 'output') expect(Buffer.from(event.data).length).toBeLessThanOrEqual(400);
    }
    flow.ack(outputBytes(events));
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('stays durable when the subscriber leaves: refills to the watermark, then the next one continues', () => {
    const { flow, calls, subscribe } = setup();
    const first: TerminalEvent[] = [];
    const subscription = subscribe(first);
    for (let i = 0; i < 6; i++) flow.push('stdout', bytes(200));
    vi.advanceTimersByTime(4);
    expect(outputBytes(first)).toBe(1200);
    expect(flow.isPaused).toBe(true);
    subscription.dispose();
    // What the first never acknowledged is dropped: reading goes on, into the queue.
    expect(calls).toEqual(['pause', 'resume']);
    for (let i = 0; i < 10 && !flow.isPaused; i++)
      flow.push('stdout', Buffer.from(`${i}`.repeat(200)));
    expect(calls).toEqual(['pause', 'resume', 'pause']);
    const queued = flow.inFlight;
    const second: TerminalEvent[] = [];
    subscribe(second);
    expect(outputBytes(second)).toBe(queued);
    expect(decoded(second).startsWith('0000')).toBe(true);
  });

  it('sends the exit after all output, holding it until someone subscribes', () => {
    const { flow, events, subscribe, exitsDelivered } = setup();
    flow.push('stdout', Buffer.from('bye'));
    flow.pushExit({ type: 'exit', exitCode: 3, reason: 'Exited with code 3.' });
    flow.push('stdout', Buffer.from('late')); // nothing after the exit
    expect(exitsDelivered()).toBe(0);
    subscribe();
    expect(decoded(events)).toBe('bye|exit');
    expect(events.at(-1)).toEqual({ type: 'exit', exitCode: 3, reason: 'Exited with code 3.' });
    expect(exitsDelivered()).toBe(1);
    expect(flow.isExitDelivered).toBe(true);
  });

  it('sends the exit at once, without waiting for the coalescing window', () => {
    const { flow, events, subscribe } = setup();
    subscribe();
    flow.push('stdout', Buffer.from('a'));
    flow.push('stdout', Buffer.from('b'));
    flow.pushExit({ type: 'exit', reason: 'done' });
    expect(decoded(events)).toBe('ab|exit');
  });

  it('lets a new subscriber take over from the old one', () => {
    const { flow, subscribe } = setup();
    const first: TerminalEvent[] = [];
    const second: TerminalEvent[] = [];
    const old = subscribe(first);
    flow.push('stdout', Buffer.from('one'));
    subscribe(second);
    vi.advanceTimersByTime(10);
    flow.push('stdout', Buffer.from('two'));
    old.dispose(); // a stale dispose does not detach the new one
    vi.advanceTimersByTime(10);
    flow.push('stdout', Buffer.from('three'));
    expect(decoded(first)).toBe('one');
    expect(decoded(second)).toBe('twothree');
  });

  it('continues with the new subscriber when one unsubscribes while being served', () => {
    const { flow } = setup();
    const first: TerminalEvent[] = [];
    const second: TerminalEvent[] = [];
    const subscription = flow.subscribe((event) => {
      first.push(event);
      if (first.length === 2) {
        subscription.dispose();
        flow.subscribe((e) => second.push(e));
      }
    });
    flow.push('stdout', Buffer.from('a'));
    flow.push('stderr', Buffer.from('A'));
    for (const part of ['b', 'c']) {
      flow.push('stdout', Buffer.from(part));
      flow.push('stderr', Buffer.from(part.toUpperCase()));
    }
    vi.advanceTimersByTime(4);
    expect(decoded(first)).toBe('aA');
    expect(decoded(second)).toBe('bBcC');
  });
});

describe('takeBytes', () => {
  const slab = Buffer.from('abcdefghijklmnop');
  const ownsItsBuffer = (piece: Uint8Array) =>
    piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength;

  it('joins views into one copy of exactly their bytes, keeping what is over the limit', () => {
    const chunks = [slab.subarray(0, 3), slab.subarray(3, 5), slab.subarray(5, 9)];
    const piece = takeBytes(chunks, 7);
    expect(Buffer.from(piece).toString()).toBe('abcdefg');
    expect(ownsItsBuffer(piece)).toBe(true);
    expect(chunks.map((chunk) => chunk.toString())).toEqual(['hi']);
    const rest = takeBytes(chunks, 7);
    expect(Buffer.from(rest).toString()).toBe('hi');
    expect(ownsItsBuffer(rest)).toBe(true);
    expect(chunks).toEqual([]);
  });

  it('sends a chunk that is its whole buffer without copying it', () => {
    const whole = Buffer.from(new Uint8Array([1, 2, 3]).buffer);
    const chunks = [whole];
    const piece = takeBytes(chunks, 10);
    expect(piece.buffer).toBe(whole.buffer);
    expect(chunks).toEqual([]);
  });

  it('copies a view into a larger buffer, even alone', () => {
    const chunks = [slab.subarray(2, 4)];
    const piece = takeBytes(chunks, 10);
    expect(Buffer.from(piece).toString()).toBe('cd');
    expect(ownsItsBuffer(piece)).toBe(true);
    expect(piece.buffer).not.toBe(slab.buffer);
  });
});
