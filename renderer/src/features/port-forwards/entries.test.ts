import { describe, expect, it } from 'vitest';
import type { ForwardEntry } from '../../../../shared/model';
import { filterRows, forwardRow, localUrls, notListeningText, stateSummary } from './entries';

const spec = {
  target: { kind: 'pod', namespace: 'demo', name: 'web' },
  ports: [{ localPort: 0, remotePort: 8080 }],
} as const;

function entry(change: Partial<ForwardEntry> = {}): ForwardEntry {
  return {
    id: 'f1',
    nodeId: 'n1',
    nodeName: 'lab-1',
    name: 'demo/web 8080',
    spec,
    saved: false,
    autoStart: false,
    ...change,
  };
}

const metrics = {
  openConnections: 1,
  totalConnections: 3,
  failedConnections: 0,
  bytesIn: 10,
  bytesOut: 5,
};

describe('forward rows', () => {
  it('gives one URL per bound port, on the first address; wildcards open on loopback', () => {
    expect(
      localUrls([
        { remotePort: 8080, localPort: 38211, addresses: ['127.0.0.1', '::1'] },
        { remotePort: 9000, localPort: 9000, addresses: ['::1'] },
        { remotePort: 80, localPort: 8080, addresses: ['0.0.0.0'] },
      ]),
    ).toEqual([
      { remotePort: 8080, href: 'http://127.0.0.1:38211', listen: '127.0.0.1:38211, [::1]:38211' },
      { remotePort: 9000, href: 'http://[::1]:9000', listen: '[::1]:9000' },
      { remotePort: 80, href: 'http://127.0.0.1:8080', listen: '0.0.0.0:8080' },
    ]);
  });

  it("shows a running forward's state, reason and URLs", () => {
    const row = forwardRow(
      entry({
        live: {
          id: 'f1',
          spec,
          state: { name: 'reconnecting', reason: 'The pod sandbox is gone.', since: 1 },
          ports: [{ remotePort: 8080, localPort: 40000, addresses: ['127.0.0.1'] }],
          metrics,
          connections: [],
        },
      }),
      'lab',
    );
    expect(row).toMatchObject({
      state: 'reconnecting',
      reason: 'The pod sandbox is gone.',
      nodeName: 'lab',
    });
    expect(row.urls.map((url) => url.href)).toEqual(['http://127.0.0.1:40000']);
  });

  it('tells a stopped forward from one that failed or lost its node', () => {
    expect(forwardRow(entry(), 'lab')).toMatchObject({
      state: 'stopped',
      reason: 'Stopped.',
      urls: [],
    });
    expect(
      forwardRow(
        entry({ lastError: { code: 'not-found', message: 'Gave up after 300 s.' } }),
        'lab',
      ),
    ).toMatchObject({
      state: 'failed',
      reason: 'Gave up after 300 s.',
      error: { code: 'not-found' },
    });
    expect(
      forwardRow(
        entry({
          lastError: { code: 'connection-lost', message: 'Stopped because lab was disconnected.' },
        }),
        'lab',
      ),
    ).toMatchObject({ state: 'stopped', reason: 'Stopped because lab was disconnected.' });
  });

  it('filters on every word: name, pod, node, state, port', () => {
    const rows = [
      forwardRow(entry(), 'lab'),
      forwardRow(
        entry({
          id: 'f2',
          name: 'db',
          spec: { ...spec, ports: [{ localPort: 0, remotePort: 5432 }] },
        }),
        'other',
      ),
    ];
    expect(filterRows(rows, 'web lab').map((row) => row.key)).toEqual(['f1']);
    expect(filterRows(rows, '5432').map((row) => row.key)).toEqual(['f2']);
    expect(filterRows(rows, 'stopped')).toHaveLength(2);
    expect(filterRows(rows, ' ')).toBe(rows);
  });

  it('names the node a forward was on once it was removed, never its raw id', () => {
    const row = forwardRow(
      entry({
        nodeId: 'profile-8086bbc9',
        nodeName: 'lab-2',
        orphaned: true,
        saved: true,
        lastError: { code: 'failed-precondition', message: 'Stopped because lab-2 was removed.' },
      }),
    );
    expect(row).toMatchObject({
      state: 'stopped',
      nodeName: 'lab-2 (removed)',
      reason: 'lab-2 was removed: move the forward to another node to use it.',
    });
    expect(row.search).not.toContain('profile-8086bbc9');
    // Not in the node list (yet): the core's name, not the id.
    expect(forwardRow(entry({ nodeId: 'profile-1', nodeName: 'lab-1' })).nodeName).toBe('lab-1');
  });

  it('counts each state as it is: a reconnecting forward is not "running"', () => {
    const live = (name: 'active' | 'reconnecting') =>
      entry({
        live: {
          id: 'f1',
          spec,
          state: { name, reason: '', since: 1 },
          ports: [],
          metrics,
          connections: [],
        },
      });
    expect(stateSummary([forwardRow(live('reconnecting'))])).toBe('1 forward: 1 reconnecting');
    expect(
      stateSummary([
        forwardRow(live('active')),
        forwardRow(live('reconnecting')),
        forwardRow(entry()),
      ]),
    ).toBe('3 forwards: 1 active, 1 reconnecting, 1 stopped');
    expect(stateSummary([])).toBe('0 forwards');
  });

  it('says a forward that is not running is not listening, never showing the pod port as if local', () => {
    expect(notListeningText(entry())).toBe('not listening');
    expect(
      notListeningText(
        entry({ spec: { ...spec, ports: [{ localPort: 18080, remotePort: 8080 }] } }),
      ),
    ).toBe('not listening (will use :18080)');
  });
});
