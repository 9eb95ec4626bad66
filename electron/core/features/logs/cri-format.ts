/**
 * The CRI log format, as containerd and CRI-O write a container's log file: one record a
 * line,
 *
 *   <RFC 3339 time with nanoseconds> <stdout|stderr> <P|F>[:more tags] <message>\n
 *
 * e.g. `2024-05-01T12:00:00.123456789Z stdout F hello`. A line longer than the runtime's
 * limit (16 KiB by default) is written as `P` (partial) records followed by an `F` (full)
 * one. Parsing works on bytes, in place: a million records are read without making a
 * string for each.
 */

export const newline = 0x0a;
const space = 0x20;
const zero = 0x30;
const upperZ = 0x5a;
const lowerZ = 0x7a;
const plus = 0x2b;
const minus = 0x2d;
const colon = 0x3a;
const dot = 0x2e;
const upperT = 0x54;
const lowerT = 0x74;
const upperP = 0x50;
const upperF = 0x46;

/**
 * What a record's header says; `message` is where its text starts (up to the line's end).
 * Mutable so that a reader of a million records can reuse one.
 */
export interface RecordHeader {
  /** Epoch milliseconds (the nanoseconds past the millisecond are in the text only). */
  time: number;
  /** Where the timestamp text ends (its start is the record's start). */
  timeEnd: number;
  stderr: boolean;
  partial: boolean;
  message: number;
}

export function emptyHeader(): RecordHeader {
  return { time: 0, timeEnd: 0, stderr: false, partial: false, message: 0 };
}

function digits(bytes: Uint8Array, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i += 1) {
    const digit = (bytes[i] ?? 0) - zero;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The minute of the last timestamp parsed, as text and as epoch ms (UTC fields): a log's
 * records mostly share their minute with the one before, and comparing 16 bytes is much
 * cheaper than a calendar computation a million times over.
 */
const cachedMinute = new Uint8Array(16);
let cachedMinuteMs = Number.NaN;

function minuteMillis(bytes: Uint8Array, start: number): number {
  let same = !Number.isNaN(cachedMinuteMs);
  for (let i = 0; same && i < 16; i += 1) same = bytes[start + i] === cachedMinute[i];
  if (same) return cachedMinuteMs;
  const year = digits(bytes, start, 4);
  const month = digits(bytes, start + 5, 2);
  const day = digits(bytes, start + 8, 2);
  const hour = digits(bytes, start + 11, 2);
  const minute = digits(bytes, start + 14, 2);
  const separator = bytes[start + 10];
  if (
    year < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    bytes[start + 4] !== minus ||
    bytes[start + 7] !== minus ||
    (separator !== upperT && separator !== lowerT) ||
    bytes[start + 13] !== colon ||
    bytes[start + 16] !== colon
  ) {
    return Number.NaN;
  }
  cachedMinuteMs = Date.UTC(year, month - 1, day, hour, minute);
  for (let i = 0; i < 16; i += 1) cachedMinute[i] = bytes[start + i] ?? 0;
  return cachedMinuteMs;
}

/**
 * An RFC 3339 timestamp in `bytes[start, end)` as epoch milliseconds; NaN when it is not
 * one. Accepts any number of fraction digits, `Z` or a `±hh:mm` offset (runtimes write
 * local time with its offset as often as UTC).
 */
export function parseTimestamp(bytes: Uint8Array, start: number, end: number): number {
  // The shortest form: 2006-01-02T15:04:05Z
  if (end - start < 20) return Number.NaN;
  const minute = minuteMillis(bytes, start);
  const second = digits(bytes, start + 17, 2);
  // 60: a leap second, which Date folds into the next minute.
  if (Number.isNaN(minute) || second < 0 || second > 60) return Number.NaN;
  let at = start + 19;
  let millis = 0;
  if (bytes[at] === dot) {
    at += 1;
    const fractionStart = at;
    let scale = 100;
    while (at < end) {
      const digit = (bytes[at] ?? 0) - zero;
      if (digit < 0 || digit > 9) break;
      if (scale >= 1) millis += digit * scale;
      scale /= 10;
      at += 1;
    }
    if (at === fractionStart) return Number.NaN;
  }
  let offsetMinutes = 0;
  const zone = bytes[at];
  if (zone === upperZ || zone === lowerZ) {
    at += 1;
  } else if (zone === plus || zone === minus) {
    const offsetHours = digits(bytes, at + 1, 2);
    const offsetMins = digits(bytes, at + 4, 2);
    if (offsetHours < 0 || offsetMins < 0 || bytes[at + 3] !== colon) return Number.NaN;
    offsetMinutes = (offsetHours * 60 + offsetMins) * (zone === plus ? 1 : -1);
    at += 6;
  } else {
    return Number.NaN;
  }
  if (at !== end) return Number.NaN;
  return minute + second * 1000 + millis - offsetMinutes * 60_000;
}

/**
 * `stdout ` (false), `stderr ` (true), or neither (undefined) at `at`: spelled out byte by
 * byte, as this runs for every record.
 */
function streamWord(bytes: Uint8Array, at: number): boolean | undefined {
  if (bytes[at] !== 0x73 || bytes[at + 1] !== 0x74 || bytes[at + 2] !== 0x64) return undefined;
  if (bytes[at + 6] !== space) return undefined;
  const a = bytes[at + 3];
  const b = bytes[at + 4];
  const c = bytes[at + 5];
  // o u t | e r r
  if (a === 0x6f && b === 0x75 && c === 0x74) return false;
  if (a === 0x65 && b === 0x72 && c === 0x72) return true;
  return undefined;
}

/**
 * The header of the record in `bytes[start, end)` (`end` at its newline, excluded), in
 * `into`; undefined when the line is not a CRI record (then it is shown as it is).
 */
export function parseRecordHeader(
  bytes: Uint8Array,
  start: number,
  end: number,
  into: RecordHeader = emptyHeader(),
): RecordHeader | undefined {
  // The timestamp is at most 35 bytes (nanoseconds and an offset); look no further.
  let timeEnd = -1;
  const limit = Math.min(end, start + 40);
  for (let i = start + 20; i < limit; i += 1) {
    if (bytes[i] === space) {
      timeEnd = i;
      break;
    }
  }
  if (timeEnd < 0) return undefined;
  const time = parseTimestamp(bytes, start, timeEnd);
  if (Number.isNaN(time)) return undefined;
  const streamAt = timeEnd + 1;
  if (streamAt + 8 > end) return undefined;
  const stderr = streamWord(bytes, streamAt);
  if (stderr === undefined) return undefined;
  const tagAt = streamAt + 7;
  const tag = bytes[tagAt];
  if (tag !== upperP && tag !== upperF) return undefined;
  // The tag may carry more after a colon (reserved by the CRI); the first one is P or F.
  let at = tagAt + 1;
  if (bytes[at] === colon) {
    while (at < end && bytes[at] !== space) at += 1;
  }
  if (at < end && bytes[at] !== space) return undefined;
  // An empty message may be written with or without the separating space.
  const message = at < end ? at + 1 : end;
  into.time = time;
  into.timeEnd = timeEnd;
  into.stderr = stderr;
  into.partial = tag === upperP;
  into.message = message;
  return into;
}
