/**
 * Grouping a run's rows by output: rows whose exit code, stdout and stderr are the same
 * bytes (the core's `outputDigest`) form a group, the biggest first; what the grid's
 * summary says ("41 identical, 2 differ").
 */
import type { FanoutRow } from '../../../../shared/model';

export interface OutputGroup {
  readonly digest: string;
  readonly rows: readonly FanoutRow[];
  readonly exitCode: number;
}

export interface Grouping {
  /** Biggest first; ties in the rows' order. */
  readonly groups: readonly OutputGroup[];
  /** Rows with no output to compare: still running, queued, failed, vanished, cancelled. */
  readonly others: readonly FanoutRow[];
}

export function groupRows(rows: readonly FanoutRow[]): Grouping {
  const byDigest = new Map<string, FanoutRow[]>();
  const others: FanoutRow[] = [];
  for (const row of rows) {
    if (row.outputDigest === undefined) {
      others.push(row);
      continue;
    }
    const group = byDigest.get(row.outputDigest);
    if (group === undefined) byDigest.set(row.outputDigest, [row]);
    else group.push(row);
  }
  const groups = [...byDigest.entries()]
    .map(([digest, members]) => ({ digest, rows: members, exitCode: members[0]?.exitCode ?? 0 }))
    .sort((x, y) => y.rows.length - x.rows.length);
  return { groups, others };
}

/** "28 identical, 2 differ · 1 failed · 1 vanished", or "30 identical" when all agree. */
export function groupSummary(rows: readonly FanoutRow[]): string {
  const { groups, others } = groupRows(rows);
  const parts: string[] = [];
  const [first, ...rest] = groups;
  if (first !== undefined) {
    const differ = rest.reduce((sum, group) => sum + group.rows.length, 0);
    parts.push(
      first.rows.length === 1 && differ > 0
        ? `${differ + 1} all differ`
        : `${first.rows.length} identical${differ > 0 ? `, ${differ} differ` : ''}`,
    );
  }
  const counts = new Map<string, number>();
  for (const row of others) counts.set(row.state, (counts.get(row.state) ?? 0) + 1);
  for (const state of ['running', 'queued', 'failed', 'vanished', 'cancelled']) {
    const count = counts.get(state);
    if (count !== undefined) parts.push(`${count} ${state}`);
  }
  return parts.join(' · ');
}
