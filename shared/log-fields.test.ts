import { describe, expect, it } from 'vitest';
import { matchesField, parseFieldFilter, parseLogFields } from './log-fields';

describe('parseLogFields', () => {
  it('reads a JSON object: level, msg, the rest as text', () => {
    expect(parseLogFields('{"level":"error","msg":"boom","code":500,"ctx":{"a":1}}')).toEqual({
      format: 'json',
      level: 'error',
      msg: 'boom',
      rest: [
        ['code', '500'],
        ['ctx', '{"a":1}'],
      ],
    });
  });

  it('reads logfmt with quoted values and escapes', () => {
    expect(parseLogFields('time=2024-05-01 lvl=WARN message="disk \\"sda\\" full" retry')).toEqual({
      format: 'logfmt',
      level: 'WARN',
      msg: 'disk "sda" full',
      rest: [
        ['time', '2024-05-01'],
        ['retry', 'true'],
      ],
    });
  });

  it('leaves plain text, JSON that is not an object, and prose with one = alone', () => {
    expect(parseLogFields('hello world')).toBeUndefined();
    expect(parseLogFields('[1,2]')).toBeUndefined();
    expect(parseLogFields('{not json}')).toBeUndefined();
    expect(parseLogFields('set x=1 and carry on')).toBeUndefined();
    expect(parseLogFields('a="unclosed b=2')).toBeUndefined();
  });
});

describe('field filters', () => {
  it('parses key=value and matches case-insensitively, level and msg by any spelling', () => {
    const filter = parseFieldFilter(' level = error ');
    expect(filter).toEqual({ key: 'level', value: 'error' });
    expect(parseFieldFilter('no filter')).toBeUndefined();
    expect(
      matchesField(parseLogFields('severity=ERROR msg=x'), filter ?? { key: '', value: '' }),
    ).toBe(true);
    expect(matchesField(parseLogFields('{"level":"info"}'), { key: 'level', value: 'error' })).toBe(
      false,
    );
    expect(matchesField(parseLogFields('user=42 op=read'), { key: 'user', value: '42' })).toBe(
      true,
    );
    expect(matchesField(undefined, { key: 'user', value: '42' })).toBe(false);
  });
});
