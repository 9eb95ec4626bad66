import { describe, expect, it } from 'vitest';
import { podStatsHazard } from './hazards';

describe('podStatsHazard', () => {
  it.each([
    ['cri-o', '1.35.0'],
    ['cri-o', '1.35.6'],
    ['cri-o', '1.36.0'],
    ['cri-o', '1.36.3'],
    ['cri-o', 'v1.36.3'],
  ])('avoids pod stats on %s %s', (runtimeName, runtimeVersion) => {
    expect(podStatsHazard({ runtimeName, runtimeVersion })).toContain('cri-o#10206');
  });

  it.each([
    ['cri-o', '1.34.9'],
    ['cri-o', '1.36.4'],
    ['cri-o', '1.37.0'],
    ['cri-o', '2.0.0'],
    ['cri-o', 'unknown'],
    ['containerd', '1.36.3'],
    ['containerd', '2.1.9'],
  ])('asks %s %s for pod stats', (runtimeName, runtimeVersion) => {
    expect(podStatsHazard({ runtimeName, runtimeVersion })).toBeUndefined();
  });
});
