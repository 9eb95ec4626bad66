import { describe, expect, it } from 'vitest';
import type { EventSink, EventSource } from '../contract';
import { fakeEvents, fakeServices } from '../contract/testing';
import type { TerminalEvent } from '../model';
import { createClient } from './client';
import { createMessagePortPair, type MessagePortLike } from './port';
import type { ServerMessage } from './protocol';
import { OutgoingScheduler, receiveCredit } from './scheduler';
import { serve } from './server';

const KiB = 1024;

function output(id: number, bytes: number, fill = 0): ServerMessage {
  return {
    type: 'event',
    id,
    payload: { type: 'output', stream: 'stdout', data: new Uint8Array(bytes).fill(fill) },
  };
}

function exit(id: number): ServerMessage {
  return { type: 'event', id, payload: { type: 'exit', reason: 'done' } };
}

/** A scheduler on a recording port and a clock the test moves. */
function setup(windowBytes = 128 * KiB, maxQueuedBytes?: number) {
  const sent: ServerMessage[] = [];
  let now = 0;
  let overflowed = 0;
  const scheduler = new OutgoingScheduler({
    send: (message) => {
      sent.push(message);
      return true;
    },
    windowBytes,
    ...(maxQueuedBytes !== undefined && { maxQueuedBytes }),
    onOverflow: () => (overflowed += 1),
    now: () => now,
  });
  return {
    scheduler,
    sent,
    advance: (ms: number) => (now += ms),
    overflowed: () => overflowed,
    /** Which subscription each sent message belonged to, and its kind. */
    order: () =>
      sent.map((m) =>
        m.type === 'event' ? `${m.id}:${(m.payload as { type: string }).type}` : m.type,
      ),
  };
}

describe('OutgoingScheduler', () => {
  /** Another subscription with a little output: from now on the window is kept. */
  const quiet = 99;
  function contend(scheduler: OutgoingScheduler): void {
    scheduler.post(output(quiet, 1));
  }

  it('holds back nothing of a lone flood: its terminal bounds it', () => {
    const { scheduler, sent } = setup(64 * KiB);
    for (let i = 0; i < 20; i += 1) scheduler.post(output(1, 64 * KiB));
    expect(sent).toHaveLength(20);
    expect(scheduler.waiting).toBe(0);
  });

  it('sends answers and events without bytes at once, even with the window full', () => {
    const { scheduler, order } = setup(64 * KiB);
    contend(scheduler);
    scheduler.post(output(1, 64 * KiB));
    scheduler.post(output(1, 64 * KiB)); // waits: the window is full
    scheduler.post({ type: 'result', id: 7, value: 'ok' });
    scheduler.post({ type: 'event', id: 2, payload: { kind: 'snapshot' } });
    expect(order()).toEqual(['99:output', '1:output', 'result', '2:undefined']);
    expect(scheduler.waiting).toBe(64 * KiB);
  });

  it('keeps at most a window (plus the message that crossed it) on the way', () => {
    const { scheduler, sent } = setup(128 * KiB);
    contend(scheduler);
    for (let i = 0; i < 20; i += 1) scheduler.post(output(1, 48 * KiB));
    expect(sent).toHaveLength(1 + 3); // at 0, 48 and 96 KiB the window had room
    expect(scheduler.unacknowledged).toBe(144 * KiB + 1);
    scheduler.received(64 * KiB); // 80 KiB left on the way: one more fits under the window
    expect(sent).toHaveLength(5);
    for (let i = 0; i < 10; i += 1) {
      scheduler.received(48 * KiB);
      expect(scheduler.unacknowledged).toBeLessThan(128 * KiB + 48 * KiB);
    }
    expect(sent).toHaveLength(15);
  });

  it('keeps each subscription in order: its exit after all of its output', () => {
    const { scheduler, sent, order } = setup(64 * KiB);
    contend(scheduler);
    scheduler.post(output(1, 64 * KiB, 1));
    scheduler.post(output(1, 32 * KiB, 2));
    scheduler.post(output(1, 32 * KiB, 3));
    scheduler.post(exit(1)); // costs no window, but must not overtake the output
    expect(order()).toEqual(['99:output', '1:output']);
    scheduler.received(64 * KiB);
    scheduler.received(64 * KiB);
    expect(order()).toEqual(['99:output', '1:output', '1:output', '1:output', '1:exit']);
    const fills = sent
      .slice(1, 4)
      .map((m) => (m as { payload: { data: Uint8Array } }).payload.data[0] ?? -1);
    expect(fills).toEqual([1, 2, 3]);
  });

  it('serves a subscription with little recent output before one that floods', () => {
    const { scheduler, order, advance } = setup(64 * KiB);
    contend(scheduler);
    for (let i = 0; i < 8; i += 1) scheduler.post(output(1, 32 * KiB)); // 2 go, 6 wait
    advance(10);
    // Larger than an echo, so it queues like bulk output; its lane has sent nothing yet.
    scheduler.post(output(2, 8 * KiB));
    expect(order()).toEqual(['99:output', '1:output', '1:output']);
    scheduler.received(32 * KiB);
    // The window had room for 32 KiB: the quiet lane first, then the flood again.
    expect(order().slice(3)).toEqual(['2:output', '1:output']);
  });

  it('lets a small echo past a full window, behind only the window', () => {
    const { scheduler, order } = setup(64 * KiB);
    contend(scheduler);
    for (let i = 0; i < 8; i += 1) scheduler.post(output(1, 32 * KiB));
    scheduler.post(output(2, 3));
    expect(order()).toEqual(['99:output', '1:output', '1:output', '2:output']);
    expect(scheduler.unacknowledged).toBe(64 * KiB + 4);
  });

  it('lets two floods take turns', () => {
    const { scheduler, order, advance } = setup(64 * KiB);
    for (let i = 0; i < 6; i += 1) {
      scheduler.post(output(1, 32 * KiB));
      scheduler.post(output(2, 32 * KiB));
    }
    const before = order().length;
    for (let i = 0; i < 8; i += 1) {
      advance(5);
      scheduler.received(32 * KiB);
    }
    const served = order().slice(before);
    expect(served.length).toBeGreaterThanOrEqual(8);
    const ones = served.filter((entry) => entry === '1:output').length;
    expect(Math.abs(ones - (served.length - ones))).toBeLessThanOrEqual(1);
    // Never more than two in a row from the same flood.
    expect(served.join(' ')).not.toMatch(/(1:output )\1\1|(2:output )\2\2/);
  });

  it('opens the window again once the other subscription has been quiet a while', () => {
    const { scheduler, advance } = setup(64 * KiB);
    contend(scheduler);
    for (let i = 0; i < 8; i += 1) scheduler.post(output(1, 32 * KiB));
    expect(scheduler.waiting).toBeGreaterThan(0);
    advance(receiveCredit.activeMs + 1);
    scheduler.post(output(1, 32 * KiB));
    expect(scheduler.waiting).toBe(0);
  });

  it('forgets what waits for a subscription the client ended', () => {
    const { scheduler, order } = setup(64 * KiB);
    contend(scheduler);
    scheduler.post(output(1, 64 * KiB));
    scheduler.post(output(1, 64 * KiB));
    scheduler.post(exit(1));
    scheduler.forget(1);
    expect(scheduler.waiting).toBe(0);
    scheduler.received(64 * KiB);
    expect(order()).toEqual(['99:output', '1:output']);
  });

  it('delivers a listen-error after what its subscription queued', () => {
    const { scheduler, order } = setup(64 * KiB);
    contend(scheduler);
    scheduler.post(output(1, 64 * KiB));
    scheduler.post(output(1, 16 * KiB));
    scheduler.post({ type: 'listen-error', id: 1, error: { code: 'cancelled', message: 'x' } });
    expect(order()).toEqual(['99:output', '1:output']);
    scheduler.received(64 * KiB);
    expect(order()).toEqual(['99:output', '1:output', '1:output', 'listen-error']);
  });

  it('sends nothing more once disposed', () => {
    const { scheduler, sent } = setup(64 * KiB);
    contend(scheduler);
    scheduler.post(output(1, 64 * KiB));
    scheduler.post(output(1, 64 * KiB));
    scheduler.post(output(2, 8 * KiB));
    scheduler.dispose();
    expect(scheduler.waiting).toBe(0);
    scheduler.received(64 * KiB);
    scheduler.post(output(3, 1));
    scheduler.post({ type: 'result', id: 7, value: 'ok' });
    expect(sent).toHaveLength(2);
  });

  it("keeps the bound and every lane's order through any mix of output and reports", () => {
    const { scheduler, sent, advance } = setup(64 * KiB);
    contend(scheduler);
    // A fixed pseudo-random sequence: the same interleaving on every run.
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 48271) % 2147483647; // MINSTD: exact in doubles
      return seed % n;
    };
    const posted = new Map<number, number[]>();
    let next = 0;
    let largest = 0;
    // 2 s in all: every lane stays active, so the window holds throughout.
    for (let step = 0; step < 2000; step += 1) {
      advance(1);
      if (random(3) > 0) {
        const id = 1 + random(3);
        // Floods on lanes 1 and 2, echoes on lane 3; each message's first byte numbers it.
        const bytes = id === 3 ? 1 + random(3) : 1 + random(64 * KiB);
        const seq = (next += 1) % 256;
        posted.set(id, [...(posted.get(id) ?? []), seq]);
        scheduler.post(output(id, bytes, seq));
      } else {
        scheduler.received(Math.min(scheduler.unacknowledged, 16 * KiB * (1 + random(4))));
      }
      largest = Math.max(largest, scheduler.unacknowledged);
    }
    while (scheduler.waiting > 0) scheduler.received(scheduler.unacknowledged);
    // The window, the one message that crossed it and the echoes' slack at most.
    expect(largest).toBeLessThan(
      64 * KiB + receiveCredit.interactiveSlackBytes + receiveCredit.interactiveBytes,
    );
    const got = new Map<number, number[]>();
    for (const message of sent) {
      if (message.type !== 'event' || message.id === quiet) continue;
      const data = (message.payload as { data: Uint8Array }).data;
      got.set(message.id, [...(got.get(message.id) ?? []), data[0] ?? -1]);
    }
    expect(got).toEqual(posted);
  });

  it('gives up on a client that stops reading once too much waits', () => {
    const { scheduler, overflowed } = setup(64 * KiB, 256 * KiB);
    contend(scheduler);
    for (let i = 0; i < 5; i += 1) scheduler.post(output(1, 64 * KiB));
    expect(overflowed()).toBe(0);
    scheduler.post(output(1, 64 * KiB));
    expect(overflowed()).toBe(1);
  });
});

describe('receive credit between client and server', () => {
  /** Counts the client's `received` reports on their way to the server. */
  function counted(port: MessagePortLike): { port: MessagePortLike; reports: number[] } {
    const reports: number[] = [];
    return {
      reports,
      port: {
        ...port,
        postMessage(message) {
          const m = message as { type?: string; bytes?: number };
          if (m.type === 'received') reports.push(m.bytes ?? -1);
          port.postMessage(message);
        },
      },
    };
  }

  it('delivers two floods larger than the window whole and in order, reported in batches', async () => {
    const [clientEnd, serverEnd] = createMessagePortPair({ clone: 'json' });
    const { port, reports } = counted(clientEnd);
    const sinks = new Map<string, EventSink<TerminalEvent>>();
    const events: EventSource = fakeEvents({
      terminal: (argument, sink) => {
        sinks.set(argument.terminalId, sink);
        return { dispose: () => undefined };
      },
    });
    const server = serve(serverEnd, fakeServices({}), events, { receiveWindowBytes: 64 * KiB });
    const client = createClient(port);
    const got = new Map<string, number[]>();
    const exited = new Set<string>();
    for (const id of ['a', 'b']) {
      got.set(id, []);
      client.subscribe('terminal', { terminalId: id }, (event) => {
        if (event.type === 'output') got.get(id)?.push(...event.data);
        if (event.type === 'exit') exited.add(id);
      });
    }
    await expect.poll(() => sinks.size).toBe(2);
    const pieces = 40;
    const piece = 16 * KiB;
    for (let i = 0; i < pieces; i += 1) {
      for (const sink of sinks.values()) {
        sink.next({ type: 'output', stream: 'stdout', data: new Uint8Array(piece).fill(i) });
      }
    }
    for (const sink of sinks.values()) sink.next({ type: 'exit', reason: 'done' });
    await expect.poll(() => exited.size).toBe(2);
    for (const bytes of got.values()) {
      expect(bytes).toHaveLength(pieces * piece);
      for (let i = 0; i < pieces; i += 1) expect(bytes[i * piece]).toBe(i);
    }
    expect(reports.every((bytes) => bytes % receiveCredit.ackBytes === 0)).toBe(true);
    const total = 2 * pieces * piece;
    expect(reports.reduce((a, b) => a + b, 0)).toBe(
      Math.floor(total / receiveCredit.ackBytes) * receiveCredit.ackBytes,
    );
    client.dispose();
    server.dispose();
  });
});
