import { describe, expect, it } from 'vitest';
import type { DiagnosticsReport } from '../../../../shared/model';
import { formatReport } from './report';

const report: DiagnosticsReport = {
  generatedAt: Date.UTC(2026, 11, 1, 23, 0),
  appVersion: '0.1.0',
  versions: { node: '24.22.3', v8: '13.6', electron: '45.5.0', chrome: '140.0' },
  platform: 'linux',
  arch: 'x64',
  logFile: '/home/someone/.config/porthole/logs/porthole.log',
  nodes: [
    {
      name: 'lab-2',
      kind: 'local',
      state: 'connected',
      runtime: { name: 'containerd', version: '2.1.9', criVersion: 'v1' },
      updates: 'events',
      capabilities: {
        containerEvents: 'supported',
        runtimeConfig: 'supported',
        podSandboxStats: 'supported',
        containerStats: 'supported',
        metricDescriptors: 'unsupported',
        podSandboxMetrics: 'unsupported',
        imageFsInfo: 'supported',
        checkpointContainer: 'unknown',
      },
    },
    { name: 'edge', kind: 'ssh', state: 'failed' },
  ],
};

describe('formatReport', () => {
  it('names versions, nodes and capabilities, and not where the log lives', () => {
    const text = formatReport(report, { mode: 'electron' });
    expect(text).toBe(
      [
        'Porthole 0.1.0 (desktop app)',
        'Core: Electron 45.5.0, Chrome 140.0, Node 24.22.3, V8 13.6, linux x64',
        'Report made 2026-12-01T23:00:00.000Z',
        '',
        'Nodes (2)',
        '- lab-2: local, connected; containerd 2.1.9, CRI v1, updates by events',
        '  capabilities: containerEvents supported, runtimeConfig supported, podSandboxStats supported, containerStats supported, metricDescriptors unsupported, podSandboxMetrics unsupported, imageFsInfo supported, checkpointContainer unknown',
        '- edge: ssh, failed; runtime unknown',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('someone');
  });

  it('adds the browser in browser mode', () => {
    const text = formatReport(
      { ...report, nodes: [] },
      { mode: 'browser', userAgent: 'Chromium/140' },
    );
    expect(text).toContain('Porthole 0.1.0 (browser mode)\n');
    expect(text).toContain('Browser: Chromium/140\n');
    expect(text).toContain('Nodes (0)\n- none\n');
  });
});
