import { describe, expect, it } from 'vitest';
import { parseRecordHeader, parseTimestamp } from './cri-format';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
const time = (text: string): number => parseTimestamp(bytes(text), 0, text.length);
const header = (line: string) => parseRecordHeader(bytes(line), 0, line.length);

describe('parseTimestamp', () => {
  it('reads RFC 3339 with nanoseconds to the millisecond', () => {
    expect(time('2024-05-01T12:00:00.123456789Z')).toBe(Date.UTC(2024, 4, 1, 12, 0, 0, 123));
    expect(time('2024-05-01T12:00:00.9Z')).toBe(Date.UTC(2024, 4, 1, 12, 0, 0, 900));
    expect(time('2024-05-01T12:00:59Z')).toBe(Date.UTC(2024, 4, 1, 12, 0, 59));
  });

  it('applies an offset', () => {
    expect(time('2024-05-01T14:00:00.5+02:00')).toBe(Date.UTC(2024, 4, 1, 12, 0, 0, 500));
    expect(time('2024-05-01T07:30:00-04:30')).toBe(Date.UTC(2024, 4, 1, 12, 0, 0));
  });

  it('is not fooled by timestamps that share or change their minute', () => {
    const a = '2024-05-01T12:00:01.000Z';
    const b = '2024-05-01T12:01:01.000Z';
    const c = '2023-05-01T12:00:01.000Z';
    for (let i = 0; i < 3; i += 1) {
      expect(time(a)).toBe(Date.UTC(2024, 4, 1, 12, 0, 1));
      expect(time(b)).toBe(Date.UTC(2024, 4, 1, 12, 1, 1));
      expect(time(c)).toBe(Date.UTC(2023, 4, 1, 12, 0, 1));
    }
  });

  it.each([
    '',
    'not a time at all, no',
    '2024-13-01T12:00:00Z',
    '2024-05-01 12:00:00Z',
    '2024-05-01T12:00:00',
    '2024-05-01T12:00:00.Z',
    '2024-05-01T12:00:00+0200',
    '2024-05-01T12:00:00Zjunk',
    '2024-05-01T25:00:00Z',
  ])('refuses %j', (text) => {
    expect(time(text)).toBeNaN();
  });
});

describe('parseRecordHeader', () => {
  it('reads stream, tag and where the message starts', () => {
    const line = '2024-05-01T12:00:00.123456789Z stderr P part one';
    const parsed = header(line);
    expect(parsed).toMatchObject({ stderr: true, partial: true, timeEnd: 30 });
    expect(line.slice(parsed?.message)).toBe('part one');
    expect(header('2024-05-01T12:00:00Z stdout F x')).toMatchObject({
      stderr: false,
      partial: false,
    });
  });

  it('takes an empty message with or without the separating space', () => {
    const withSpace = '2024-05-01T12:00:00Z stdout F ';
    const without = '2024-05-01T12:00:00Z stdout F';
    expect(header(withSpace)?.message).toBe(withSpace.length);
    expect(header(without)?.message).toBe(without.length);
  });

  it('accepts more tags after a colon', () => {
    const line = '2024-05-01T12:00:00Z stdout F:x:y hello';
    expect(line.slice(header(line)?.message)).toBe('hello');
  });

  it.each([
    'plain text from somewhere else',
    '2024-05-01T12:00:00Z stdin F hello',
    '2024-05-01T12:00:00Z stdout X hello',
    '2024-05-01T12:00:00Z stdout FF hello',
    '2024-05-01T12:00:00Z stdout',
    'yesterday stdout F hello',
  ])('is not a record: %j', (line) => {
    expect(header(line)).toBeUndefined();
  });
});
