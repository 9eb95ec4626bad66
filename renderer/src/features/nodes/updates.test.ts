import { describe, expect, it } from 'vitest';
import type { Capabilities, NodeStatus } from '../../../../shared/model';
import { updatesText } from './updates';

function node(containerEvents: Capabilities['containerEvents'], runtimeName = 'cri-o'): NodeStatus {
  return {
    nodeId: 'n',
    name: 'n',
    kind: 'local',
    endpoint: 'unix:///x.sock',
    origin: 'discovered',
    state: 'connected',
    updates: containerEvents === 'supported' ? 'events' : 'polling',
    runtime: {
      runtimeName,
      runtimeVersion: '1',
      runtimeApiVersion: 'v1',
      apiVersion: '0.1.0',
      conditions: [],
      handlers: [],
    },
    capabilities: { containerEvents } as Capabilities,
  };
}

describe('updatesText', () => {
  it('says why a node is polled', () => {
    expect(updatesText(node('supported'))).toBe('Live, from the runtime’s container events');
    expect(updatesText(node('unsupported', 'containerd'))).toBe(
      'Polling (the runtime has no container events)',
    );
    expect(updatesText(node('disabled'))).toMatch(
      /^Polling: container events are switched off on this node \(CRI-O’s enable_pod_events = false/,
    );
    expect(updatesText(node('disabled', 'other'))).toMatch(/switched off on this node/);
    expect(updatesText(node('unknown'))).toMatch(/could not be confirmed/);
  });
});
