import { describe, expect, it } from 'vitest';
import type { FanoutRow } from '../../../../shared/model';
import { groupRows, groupSummary } from './groups';

function row(key: string, change: Partial<FanoutRow>): FanoutRow {
  const output = { text: '', bytes: 0, truncated: false };
  return {
    key,
    nodeId: 'n',
    nodeName: 'n',
    containerId: key,
    containerName: key,
    podName: 'p',
    podNamespace: 'default',
    state: 'exited',
    exitCode: 0,
    stdout: output,
    stderr: output,
    ...change,
  };
}

describe('groupRows', () => {
  it('puts the biggest group first and keeps rows without output aside', () => {
    const rows = [
      row('a', { outputDigest: 'x' }),
      row('b', { outputDigest: 'y' }),
      row('c', { outputDigest: 'x' }),
      row('d', { state: 'vanished', reason: 'gone' }),
    ];
    const grouping = groupRows(rows);
    expect(grouping.groups.map((group) => [group.digest, group.rows.map((r) => r.key)])).toEqual([
      ['x', ['a', 'c']],
      ['y', ['b']],
    ]);
    expect(grouping.others.map((r) => r.key)).toEqual(['d']);
    expect(groupSummary(rows)).toBe('2 identical, 1 differ · 1 vanished');
  });

  it('says when all agree, and when all differ', () => {
    expect(groupSummary([row('a', { outputDigest: 'x' }), row('b', { outputDigest: 'x' })])).toBe(
      '2 identical',
    );
    expect(groupSummary([row('a', { outputDigest: 'x' }), row('b', { outputDigest: 'y' })])).toBe(
      '2 all differ',
    );
  });
});
