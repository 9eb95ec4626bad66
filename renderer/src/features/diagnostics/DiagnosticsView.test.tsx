// @vitest-environment happy-dom
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import {
  nodesReset,
  type AppLogEntry,
  type DiagnosticsReport,
  type NodeStatus,
} from '../../../../shared/model';
import { createAppModel } from '../../app/model';
import { mountView } from '../../app/testing';
import { createInMemoryPorthole } from '../../platform';
import { DiagnosticsView } from './DiagnosticsView';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const entries: AppLogEntry[] = [
  { time: 1, level: 'info', scope: 'nodes', message: 'Connected lab.' },
  {
    time: 2,
    level: 'warn',
    scope: 'forwards',
    message: 'Forward web did not start.',
    detail: 'EADDRINUSE',
  },
];

const report: DiagnosticsReport = {
  generatedAt: 3,
  appVersion: '0.1.0',
  versions: { node: '24.22.3', v8: '13.6' },
  platform: 'linux',
  arch: 'x64',
  nodes: [{ name: 'lab', kind: 'local', state: 'connected' }],
  logFile: '/tmp/config/logs/porthole.log',
};

describe('Diagnostics', () => {
  it('shows the log and the facts, filters to problems, and reads again when a node changes', async () => {
    const recentLog = vi.fn(() => Promise.resolve({ entries, omitted: 0 }));
    let pushNodes: ((nodes: NodeStatus[]) => void) | undefined;
    const events = fakeEvents({
      nodes: (_argument, sink) => {
        pushNodes = (nodes) => sink.next(nodesReset(nodes));
        sink.next(nodesReset([]));
        return { dispose() {} };
      },
    });
    const services = fakeServices({
      diagnostics: { recentLog, report: () => Promise.resolve(report) },
      nodes: { list: () => Promise.resolve([]) },
    });
    const model = createAppModel(createInMemoryPorthole(services, events));
    const view = await mountView(model, <DiagnosticsView />);
    cleanup = view.unmount;
    const list = () => view.element.querySelector('[aria-label="Recent log entries"]');
    await vi.waitFor(() => expect(list()?.querySelectorAll('li')).toHaveLength(2));
    expect(list()?.getAttribute('tabindex')).toBe('0');
    expect(view.element.textContent).toContain('/tmp/config/logs/porthole.log');
    expect(view.element.textContent).toContain('EADDRINUSE');

    const select = view.element.querySelector('select')!;
    await act(async () => {
      select.value = 'problems';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await Promise.resolve();
    });
    expect(list()?.textContent).not.toContain('Connected lab.');
    expect(list()?.textContent).toContain('Forward web did not start.');

    const calls = recentLog.mock.calls.length;
    await vi.waitFor(() => expect(pushNodes).toBeDefined());
    await act(async () => {
      pushNodes!([
        {
          nodeId: 'n',
          name: 'lab',
          kind: 'local',
          endpoint: 'unix:///x',
          origin: 'discovered',
          state: 'connecting',
        },
      ]);
      await Promise.resolve();
    });
    await vi.waitFor(() => expect(recentLog.mock.calls.length).toBeGreaterThan(calls));
  });
});
