import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../../../shared/model';
import {
  describeAttempt,
  describeTransport,
  fellBack,
  filterSessions,
  formatDuration,
  kindLabels,
  outcomeOf,
  sessionKinds,
  sessionRows,
} from './rows';

function session(change: Partial<SessionSnapshot>): SessionSnapshot {
  return {
    id: 's',
    kind: 'exec',
    nodeId: 'n',
    nodeName: 'lab',
    target: { description: 'default/web › app' },
    attempts: [],
    state: 'active',
    startedAt: 0,
    lastActivityAt: 0,
    bytesIn: 0,
    bytesOut: 0,
    throughput: [],
    killable: true,
    ...change,
  };
}

describe('session rows', () => {
  const rows = sessionRows([
    session({ id: 'a', detail: 'sh', transport: 'spdy', protocol: 'v4.channel.k8s.io' }),
    session({
      id: 'b',
      kind: 'port-forward',
      target: { description: 'default/db :5432' },
      state: 'ended',
      killable: false,
    }),
    session({
      id: 'c',
      kind: 'logs',
      nodeName: 'edge',
      state: 'failed',
      stateReason: 'The file was removed.',
    }),
  ]);

  it('filters by text, kind and live or ended, together', () => {
    const ids = (filter: Parameters<typeof filterSessions>[1]) =>
      filterSessions(rows, filter).map((row) => row.key);
    expect(ids({ text: '', kind: '', liveness: 'all' })).toEqual(['a', 'b', 'c']);
    expect(ids({ text: '', kind: '', liveness: 'live' })).toEqual(['a']);
    expect(ids({ text: '', kind: '', liveness: 'ended' })).toEqual(['b', 'c']);
    expect(ids({ text: '', kind: 'port-forward', liveness: 'all' })).toEqual(['b']);
    expect(ids({ text: 'edge removed', kind: '', liveness: 'all' })).toEqual(['c']);
    expect(ids({ text: 'v4.channel', kind: 'exec', liveness: 'live' })).toEqual(['a']);
    expect(ids({ text: 'v4.channel', kind: 'exec', liveness: 'ended' })).toEqual([]);
  });

  it('shows a file transfer as a transfer: a kind to filter by, and what moves', () => {
    const transfers = sessionRows([
      session({ id: 'up', kind: 'transfer', detail: 'upload big.bin to /data (tar)' }),
      session({ id: 'shell', detail: 'sh' }),
    ]);
    const ids = (filter: Parameters<typeof filterSessions>[1]) =>
      filterSessions(transfers, filter).map((row) => row.key);
    expect(ids({ text: '', kind: 'transfer', liveness: 'all' })).toEqual(['up']);
    expect(ids({ text: 'transfer big.bin', kind: '', liveness: 'all' })).toEqual(['up']);
    expect(ids({ text: '', kind: 'exec', liveness: 'all' })).toEqual(['shell']);
    expect(kindLabels.transfer).toBe('Transfer');
    expect(sessionKinds).toContain('transfer');
  });

  it('describes transports, fallbacks and outcomes', () => {
    const fallback = session({
      transport: 'websocket',
      protocol: 'v4.channel.k8s.io',
      attempts: [
        {
          transport: 'spdy',
          outcome: 'refused',
          status: 403,
          message: 'upgrade refused',
          durationMs: 0,
        },
        { transport: 'websocket', outcome: 'ok', durationMs: 12.4 },
      ],
    });
    expect(describeTransport(fallback)).toBe('WebSocket · v4.channel.k8s.io');
    expect(describeTransport(session({}))).toBe('—');
    expect(fellBack(fallback)).toBe(true);
    expect(fallback.attempts.map(describeAttempt)).toEqual([
      'SPDY refused (HTTP 403): upgrade refused',
      'WebSocket ok in 12 ms',
    ]);
    expect(outcomeOf(session({ exitCode: 3, stateReason: 'Exited.' }))).toBe('exit 3');
    expect(outcomeOf(session({ stateReason: 'Killed.' }))).toBe('Killed.');
  });

  it('formats durations compactly', () => {
    expect(formatDuration(4_900)).toBe('4s');
    expect(formatDuration(65_000)).toBe('1m 05s');
    expect(formatDuration(2 * 3600_000 + 3 * 60_000)).toBe('2h 03m');
    expect(formatDuration(50 * 3600_000)).toBe('2d 02h');
    expect(formatDuration(-5)).toBe('0s');
  });
});
