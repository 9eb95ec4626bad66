import { describe, expect, it } from 'vitest';
import { equalityLabels, matchesLabels, parseLabelSelector } from './label-selector';

describe('parseLabelSelector', () => {
  it('reads equality, inequality, existence and absence terms', () => {
    expect(parseLabelSelector('app=web, tier==front,env!=prod,canary,!legacy')).toEqual([
      { op: 'equals', key: 'app', value: 'web' },
      { op: 'equals', key: 'tier', value: 'front' },
      { op: 'not-equals', key: 'env', value: 'prod' },
      { op: 'exists', key: 'canary' },
      { op: 'absent', key: 'legacy' },
    ]);
  });

  it('keeps prefixed keys and empty values', () => {
    expect(parseLabelSelector('io.kubernetes.pod.namespace=default,a=')).toEqual([
      { op: 'equals', key: 'io.kubernetes.pod.namespace', value: 'default' },
      { op: 'equals', key: 'a', value: '' },
    ]);
  });

  it('refuses an empty selector and bad characters, saying which term', () => {
    expect(() => parseLabelSelector(' , ')).toThrow(/empty/);
    expect(() => parseLabelSelector('app=web,a b=c')).toThrow(/"a b=c"/);
    expect(() => parseLabelSelector('app=we;b')).toThrow(/value "we;b"/);
    expect(() => parseLabelSelector('x'.repeat(2000))).toThrow(/too long/);
  });
});

describe('matchesLabels', () => {
  const labels = { app: 'web', env: 'dev', canary: '' };
  it('holds when every term holds', () => {
    expect(matchesLabels(parseLabelSelector('app=web,env!=prod,canary,!legacy'), labels)).toBe(
      true,
    );
    expect(matchesLabels(parseLabelSelector('app=web,env=prod'), labels)).toBe(false);
    expect(matchesLabels(parseLabelSelector('!canary'), labels)).toBe(false);
    expect(matchesLabels(parseLabelSelector('missing!=x'), labels)).toBe(true);
  });

  it('gives the runtime only the equality terms', () => {
    expect(equalityLabels(parseLabelSelector('app=web,env!=prod,canary'))).toEqual({ app: 'web' });
  });
});
