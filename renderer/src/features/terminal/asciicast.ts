/**
 * asciicast v2 (asciinema's format): a JSON header line, then one JSON array per event,
 * `[seconds since start, code, data]`: "o" output, "i" input, "r" resize ("COLSxROWS"),
 * "m" marker. https://docs.asciinema.org/manual/asciicast/v2/
 */
import { AppError } from '../../../../shared/errors';

export interface CastHeader {
  readonly version: 2;
  readonly width: number;
  readonly height: number;
  /** Unix seconds of the start. */
  readonly timestamp?: number;
  readonly title?: string;
  /** Players shorten pauses longer than this (seconds). */
  readonly idleTimeLimit?: number;
}

export type CastEventType = 'o' | 'i' | 'r' | 'm';

export interface CastEvent {
  /** Seconds since the start. */
  readonly time: number;
  readonly type: CastEventType;
  readonly data: string;
}

export interface Cast {
  readonly header: CastHeader;
  readonly events: readonly CastEvent[];
  /** Seconds from the start to the last event. */
  readonly duration: number;
}

/** 32 MiB of cast text: about an hour of a busy shell, and never a browser tab's memory. */
export const defaultCastLimit = 32 * 1024 * 1024;

export interface CastRecorderOptions {
  readonly width: number;
  readonly height: number;
  readonly title?: string;
  /** Wall-clock start, ms since the epoch (the header's timestamp). */
  readonly startedAt?: number;
  /** A monotonic clock in ms (performance.now); event times are relative to the first call. */
  readonly clock?: () => number;
  /** Stops recording (keeping what it has) once the text would pass this many characters. */
  readonly maxChars?: number;
}

/**
 * Records output and resizes as they are drawn. Bytes are decoded with a streaming
 * decoder, so a character split across chunks stays one character; the size is bounded
 * and a recording that reaches the bound stops and says so (`truncated`).
 */
export class CastRecorder {
  private readonly lines: string[];
  private readonly decoder = new TextDecoder('utf-8');
  private readonly clock: () => number;
  private readonly started: number;
  private readonly maxChars: number;
  private chars: number;
  private lastTime = 0;
  private stopped = false;
  private full = false;

  constructor(options: CastRecorderOptions) {
    this.clock = options.clock ?? (() => performance.now());
    this.started = this.clock();
    this.maxChars = options.maxChars ?? defaultCastLimit;
    const header = {
      version: 2,
      width: options.width,
      height: options.height,
      timestamp: Math.floor((options.startedAt ?? Date.now()) / 1000),
      ...(options.title !== undefined && { title: options.title }),
      env: { TERM: 'xterm-256color' },
    };
    const line = JSON.stringify(header);
    this.lines = [line];
    this.chars = line.length + 1;
  }

  /** Whether the size bound stopped the recording early. */
  get truncated(): boolean {
    return this.full;
  }

  get recording(): boolean {
    return !this.stopped && !this.full;
  }

  /** Characters of cast text so far (about its size in bytes). */
  get size(): number {
    return this.chars;
  }

  /** Seconds from the start to the last event. */
  get duration(): number {
    return this.lastTime;
  }

  output(bytes: Uint8Array): void {
    if (!this.recording) return;
    const text = this.decoder.decode(bytes, { stream: true });
    if (text !== '') this.event('o', text);
  }

  resize(cols: number, rows: number): void {
    if (this.recording) this.event('r', `${cols}x${rows}`);
  }

  /** Ends the recording; nothing more is added. */
  stop(): void {
    if (this.stopped) return;
    const rest = this.decoder.decode();
    if (rest !== '' && !this.full) this.event('o', rest);
    this.stopped = true;
  }

  /** The .cast file's text (one JSON value per line, newline-terminated). */
  text(): string {
    return `${this.lines.join('\n')}\n`;
  }

  private event(type: CastEventType, data: string): void {
    const time = Math.max(this.lastTime, (this.clock() - this.started) / 1000);
    const line = JSON.stringify([Number(time.toFixed(6)), type, data]);
    if (this.chars + line.length + 1 > this.maxChars) {
      this.full = true;
      return;
    }
    this.lastTime = time;
    this.lines.push(line);
    this.chars += line.length + 1;
  }
}

function notACast(message: string, line: number, hint?: string): AppError {
  return new AppError({
    code: 'invalid-argument',
    message,
    detail: `line ${line}`,
    hint:
      hint ?? 'Porthole plays asciicast v2 recordings (.cast files from asciinema 2 or Porthole).',
  });
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function parseJson(text: string, line: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw notACast(
      `Line ${line} of the recording is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      line,
    );
  }
}

function parseHeader(text: string): CastHeader {
  const value = parseJson(text, 1);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw notACast('The recording has no asciicast header.', 1);
  }
  const header = value as Record<string, unknown>;
  if (header.version !== 2) {
    throw notACast(
      `This is an asciicast version ${JSON.stringify(header.version)} recording; Porthole plays version 2.`,
      1,
      'Convert it with asciinema 2 (asciinema cat / rec), or record it again.',
    );
  }
  if (!positive(header.width) || !positive(header.height)) {
    throw notACast('The recording header has no valid width and height.', 1);
  }
  return {
    version: 2,
    width: Math.floor(header.width),
    height: Math.floor(header.height),
    ...(typeof header.timestamp === 'number' && { timestamp: header.timestamp }),
    ...(typeof header.title === 'string' && { title: header.title }),
    ...(positive(header.idle_time_limit) && { idleTimeLimit: header.idle_time_limit }),
  };
}

const eventTypes: readonly string[] = ['o', 'i', 'r', 'm'];

/** Parses a .cast file; rejects anything else with an `invalid-argument` AppError. */
export function parseCast(text: string): Cast {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first < 0) throw notACast('The recording is empty.', 1);
  const header = parseHeader(lines[first] ?? '');
  const events: CastEvent[] = [];
  let last = 0;
  for (let index = first + 1; index < lines.length; index += 1) {
    const line = (lines[index] ?? '').trim();
    if (line === '') continue;
    const value = parseJson(line, index + 1);
    if (
      !Array.isArray(value) ||
      value.length < 3 ||
      typeof value[0] !== 'number' ||
      !Number.isFinite(value[0]) ||
      typeof value[1] !== 'string' ||
      typeof value[2] !== 'string'
    ) {
      throw notACast(`Line ${index + 1} is not an event ([time, code, data]).`, index + 1);
    }
    const [time, type, data] = value as [number, string, string];
    // Players skip event codes they don't know (the format reserves room to grow).
    if (!eventTypes.includes(type)) continue;
    // Out-of-order times would make a player go backwards: hold them at the last one.
    last = Math.max(last, time);
    events.push({ time: last, type: type as CastEventType, data });
  }
  return { header, events, duration: last };
}

/** "120x40" → size; undefined when it isn't one. */
export function parseCastSize(data: string): { cols: number; rows: number } | undefined {
  const match = /^(\d+)x(\d+)$/.exec(data);
  if (match === null) return undefined;
  const cols = Number(match[1]);
  const rows = Number(match[2]);
  return cols > 0 && rows > 0 ? { cols, rows } : undefined;
}
