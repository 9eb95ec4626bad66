import { describe, expect, it } from 'vitest';
import { matchesSelector, parseLabelSelector } from './label-selector';

function parse(text: string) {
  const result = parseLabelSelector(text);
  if (!result.ok) throw new Error(result.error);
  return result.requirements;
}

const web = { app: 'web', tier: 'frontend', env: 'prod' };
const db = { app: 'db', tier: 'data' };

describe('parseLabelSelector', () => {
  it('reads equality, inequality, sets and existence', () => {
    expect(
      parse('app=web, tier!=db,env in (prod, staging),release notin (canary),gpu,!legacy'),
    ).toEqual([
      { key: 'app', op: 'in', values: ['web'] },
      { key: 'tier', op: 'not-in', values: ['db'] },
      { key: 'env', op: 'in', values: ['prod', 'staging'] },
      { key: 'release', op: 'not-in', values: ['canary'] },
      { key: 'gpu', op: 'exists' },
      { key: 'legacy', op: 'not-exists' },
    ]);
  });

  it('accepts == and prefixed keys', () => {
    expect(parse('app.kubernetes.io/name==web')).toEqual([
      { key: 'app.kubernetes.io/name', op: 'in', values: ['web'] },
    ]);
  });

  it('is empty for blank text', () => {
    expect(parse('  ')).toEqual([]);
  });

  it('explains what is wrong', () => {
    expect(parseLabelSelector('app=web,')).toMatchObject({
      ok: false,
      error: expect.stringContaining('empty') as string,
    });
    expect(parseLabelSelector('env in (a,b')).toMatchObject({
      ok: false,
      error: 'Unbalanced parentheses.',
    });
    expect(parseLabelSelector('env in ()')).toMatchObject({ ok: false });
    expect(parseLabelSelector('has space')).toMatchObject({ ok: false });
    expect(parseLabelSelector('=web')).toMatchObject({ ok: false });
  });
});

describe('matchesSelector', () => {
  it('applies every requirement', () => {
    expect(matchesSelector(web, parse('app=web,tier!=db'))).toBe(true);
    expect(matchesSelector(db, parse('app=web,tier!=db'))).toBe(false);
    expect(matchesSelector(web, parse('env in (prod,staging)'))).toBe(true);
    expect(matchesSelector(db, parse('env'))).toBe(false);
    expect(matchesSelector(db, parse('!env'))).toBe(true);
  });

  it('lets a missing label satisfy != and notin, as Kubernetes does', () => {
    expect(matchesSelector(db, parse('env!=prod'))).toBe(true);
    expect(matchesSelector(db, parse('env notin (prod)'))).toBe(true);
  });

  it('matches an empty value', () => {
    expect(matchesSelector({ flag: '' }, parse('flag='))).toBe(true);
  });
});
