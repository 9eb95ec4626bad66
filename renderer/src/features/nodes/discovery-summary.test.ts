import { describe, expect, it } from 'vitest';
import type { DiscoveryReport } from '../../../../shared/contract';
import { labUpCommand, summarizeDiscovery } from './discovery-summary';

const report: DiscoveryReport = {
  warnings: [],
  sources: [
    { source: 'environment', where: 'CONTAINER_RUNTIME_ENDPOINT', outcome: 'unset' },
    { source: 'crictl-config', where: '/etc/crictl.yaml', outcome: 'empty' },
    { source: 'lab', where: '/tmp/phl9/lab.json', outcome: 'unset' },
  ],
  endpoints: [
    {
      endpoint: 'unix:///run/containerd/containerd.sock',
      imageEndpoint: 'unix:///run/containerd/containerd.sock',
      source: 'well-known',
      origin: 'containerd',
      probe: { state: 'absent', errorCode: 'not-found', message: 'No socket.' },
    },
  ],
};

describe('what a Discover did', () => {
  it('lists every place it looked, and what was there, when it found nothing', () => {
    const summary = summarizeDiscovery(report);
    expect(summary.found).toEqual([]);
    expect(summary.lookedAt).toEqual([
      { where: 'CONTAINER_RUNTIME_ENDPOINT', outcome: 'not set' },
      { where: '/etc/crictl.yaml', outcome: 'names no runtime-endpoint' },
      { where: '/tmp/phl9/lab.json', outcome: 'not there: the lab is not up' },
      { where: '/run/containerd/containerd.sock', outcome: 'no socket' },
    ]);
    expect(labUpCommand(summary.labStateFile)).toBe('PORTHOLE_LAB_DIR=/tmp/phl9 npm run lab -- up');
    expect(labUpCommand('/tmp/porthole-lab/lab.json')).toBe('npm run lab -- up');
  });

  it('names what it found as the node list does', () => {
    const found = summarizeDiscovery(
      {
        ...report,
        endpoints: [
          {
            ...report.endpoints[0]!,
            source: 'lab',
            origin: 'lab containerd-2',
            probe: {
              state: 'ready',
              info: {
                runtimeName: 'containerd',
                runtimeVersion: '2.1.9',
                runtimeApiVersion: 'v1',
                apiVersion: '0.1.0',
                conditions: [],
                handlers: [],
              },
            },
          },
        ],
      },
      () => 'my containerd',
    ).found;
    expect(found).toEqual([
      { endpoint: 'unix:///run/containerd/containerd.sock', name: 'my containerd' },
    ]);
  });
});
