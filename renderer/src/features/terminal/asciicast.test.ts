import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { CastRecorder, parseCast, parseCastSize } from './asciicast';

const utf8 = (value: string): Uint8Array => new TextEncoder().encode(value);

function fakeClock(): { now: number; clock: () => number } {
  const state = { now: 1000, clock: () => state.now };
  return state;
}

describe('CastRecorder', () => {
  it('writes an asciicast v2 header and output events with times relative to the start', () => {
    const time = fakeClock();
    const recorder = new CastRecorder({
      width: 100,
      height: 30,
      title: 'web › bash',
      startedAt: Date.UTC(2024, 4, 1, 12, 0, 0),
      clock: time.clock,
    });
    time.now += 250;
    recorder.output(utf8('$ echo hi\r\n'));
    time.now += 1500;
    recorder.output(utf8('hi\r\n'));
    recorder.stop();
    const [header, ...events] = recorder
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(header).toEqual({
      version: 2,
      width: 100,
      height: 30,
      timestamp: Date.UTC(2024, 4, 1, 12, 0, 0) / 1000,
      title: 'web › bash',
      env: { TERM: 'xterm-256color' },
    });
    expect(events).toEqual([
      [0.25, 'o', '$ echo hi\r\n'],
      [1.75, 'o', 'hi\r\n'],
    ]);
    expect(recorder.text().endsWith('\n')).toBe(true);
  });

  it('records resizes as "r" events', () => {
    const time = fakeClock();
    const recorder = new CastRecorder({ width: 80, height: 24, clock: time.clock });
    time.now += 100;
    recorder.resize(120, 40);
    const lines = recorder.text().trimEnd().split('\n');
    expect(JSON.parse(lines[1] ?? '')).toEqual([0.1, 'r', '120x40']);
  });

  it('keeps a character split across two chunks whole', () => {
    const time = fakeClock();
    const recorder = new CastRecorder({ width: 80, height: 24, clock: time.clock });
    const euro = utf8('€');
    recorder.output(euro.subarray(0, 1));
    recorder.output(Uint8Array.from([...euro.subarray(1), ...utf8('!')]));
    const cast = parseCast(recorder.text());
    expect(cast.events.map((event) => event.data).join('')).toBe('€!');
    expect(recorder.text()).not.toContain('\uFFFD');
  });

  it('stops at its size limit, keeps what it has and says so', () => {
    const time = fakeClock();
    const recorder = new CastRecorder({ width: 80, height: 24, clock: time.clock, maxChars: 400 });
    for (let index = 0; index < 50; index += 1) {
      time.now += 10;
      recorder.output(utf8(`line ${index}\r\n`));
    }
    expect(recorder.truncated).toBe(true);
    expect(recorder.recording).toBe(false);
    expect(recorder.size).toBeLessThanOrEqual(400);
    expect(recorder.text().length).toBeLessThanOrEqual(400);
    const cast = parseCast(recorder.text());
    expect(cast.events.length).toBeGreaterThan(3);
    expect(cast.events[0]?.data).toBe('line 0\r\n');
  });

  it('adds nothing after stop', () => {
    const recorder = new CastRecorder({ width: 80, height: 24 });
    recorder.output(utf8('a'));
    recorder.stop();
    recorder.output(utf8('b'));
    recorder.resize(10, 10);
    expect(parseCast(recorder.text()).events.map((event) => event.data)).toEqual(['a']);
  });
});

describe('parseCast', () => {
  const file = [
    '{"version": 2, "width": 90, "height": 20, "timestamp": 1700000000, "idle_time_limit": 2, "title": "demo"}',
    '[0.5, "o", "hello "]',
    '[0.7, "i", "x"]',
    '[1.0, "r", "100x30"]',
    '[1.25, "m", "chapter"]',
    '[1.5, "x", "future event type"]',
    '',
    '[2.0, "o", "world\\r\\n"]',
  ].join('\n');

  it('reads the header and the events, skipping codes it does not know', () => {
    const cast = parseCast(file);
    expect(cast.header).toEqual({
      version: 2,
      width: 90,
      height: 20,
      timestamp: 1700000000,
      idleTimeLimit: 2,
      title: 'demo',
    });
    expect(cast.events.map((event) => [event.time, event.type, event.data])).toEqual([
      [0.5, 'o', 'hello '],
      [0.7, 'i', 'x'],
      [1.0, 'r', '100x30'],
      [1.25, 'm', 'chapter'],
      [2.0, 'o', 'world\r\n'],
    ]);
    expect(cast.duration).toBe(2);
  });

  it('holds out-of-order times at the last one', () => {
    const cast = parseCast('{"version":2,"width":8,"height":2}\n[1,"o","a"]\n[0.5,"o","b"]\n');
    expect(cast.events.map((event) => event.time)).toEqual([1, 1]);
  });

  it('round-trips what the recorder writes', () => {
    const recorder = new CastRecorder({ width: 80, height: 24 });
    recorder.output(utf8('\x1b[31mred\x1b[0m "quoted" \\ back\r\n'));
    expect(parseCast(recorder.text()).events[0]?.data).toBe(
      '\x1b[31mred\x1b[0m "quoted" \\ back\r\n',
    );
  });

  it.each([
    ['', /empty/],
    ['not json', /not JSON/],
    ['[1, "o", "x"]', /no asciicast header/],
    ['{"version": 1, "width": 80, "height": 24, "stdout": []}', /version 1.*version 2/],
    ['{"version": 2, "width": 0, "height": 24}', /width and height/],
    ['{"version": 2, "width": 80, "height": 24}\n[1, "o"]', /Line 2 is not an event/],
    ['{"version": 2, "width": 80, "height": 24}\n{"a": 1}', /Line 2 is not an event/],
  ])('refuses %j with a clear invalid-argument error', (text, message) => {
    let caught: unknown;
    try {
      parseCast(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('invalid-argument');
    expect((caught as AppError).message).toMatch(message);
    expect((caught as AppError).hint).toBeTruthy();
  });
});

describe('parseCastSize', () => {
  it('reads COLSxROWS', () => {
    expect(parseCastSize('120x40')).toEqual({ cols: 120, rows: 40 });
    expect(parseCastSize('0x40')).toBeUndefined();
    expect(parseCastSize('wide')).toBeUndefined();
  });
});
