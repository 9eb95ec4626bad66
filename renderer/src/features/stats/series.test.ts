import { describe, expect, it } from 'vitest';
import type { ContainerUsage, StatsSample } from '../../../../shared/model';
import { formatCpu, formatMemory } from './format';
import {
  appendSamples,
  chartColumns,
  knownUsages,
  latestValue,
  sparkIndex,
  topIds,
} from './series';

function container(id: string, cpuPercent?: number, memory?: number): ContainerUsage {
  return {
    containerId: id,
    name: `c-${id}`,
    ...(cpuPercent !== undefined && { cpuPercent }),
    ...(memory !== undefined && { memoryWorkingSetBytes: memory }),
  };
}

function sample(at: number, containers: ContainerUsage[] = []): StatsSample {
  return { at, containers, pods: [], podStatsSupported: true, containerStatsSupported: true };
}

describe('appendSamples', () => {
  it('appends, then drops what is older than the history or beyond the count', () => {
    const history = [sample(0), sample(2000), sample(4000)];
    expect(appendSamples(history, [sample(6000)], 4000, 100).map((s) => s.at)).toEqual([
      2000, 4000, 6000,
    ]);
    expect(appendSamples(history, [sample(6000)], 60_000, 2).map((s) => s.at)).toEqual([
      4000, 6000,
    ]);
  });

  it('keeps the same array when nothing was added', () => {
    const history = [sample(0)];
    expect(appendSamples(history, [], 1000, 10)).toBe(history);
  });
});

describe('sparkIndex', () => {
  it('gives each container its last values, with gaps where it was missing', () => {
    const samples = [
      sample(0, [container('a', undefined, 10)]),
      sample(2000, [container('a', 50, 12), container('b', 1, 5)]),
      sample(4000, [container('b', 2, 6)]),
    ];
    const index = sparkIndex(samples, 2);
    expect(index.containers.get('a')).toEqual({ cpu: [50, undefined], memory: [12, undefined] });
    expect(index.containers.get('b')).toEqual({ cpu: [1, 2], memory: [5, 6] });
    expect(index.pods.size).toBe(0);
  });
});

describe('topIds', () => {
  it('picks the busiest in the latest sample: CPU first, then memory', () => {
    const samples = [
      sample(0, [container('old', 99)]),
      sample(2000, [
        container('idle', 0.1, 100),
        container('busy', 97, 10),
        container('fat', undefined, 5000),
        container('mid', 12, 10),
      ]),
    ];
    expect(topIds(samples, 'containers', 3)).toEqual(['busy', 'mid', 'idle']);
    expect(topIds([], 'containers', 3)).toEqual([]);
  });
});

describe('chartColumns', () => {
  it('aligns every series on the sample times (seconds), null where a value is missing', () => {
    const samples = [
      sample(1000, [container('a', undefined, 10)]),
      sample(3000, [container('a', 40, 11), container('b', 5, 7)]),
    ];
    expect(chartColumns(samples, 'containers', ['a', 'b'], 'cpu')).toEqual([
      [1, 3],
      [null, 40],
      [null, 5],
    ]);
    expect(chartColumns(samples, 'containers', ['b'], 'memory')).toEqual([
      [1, 3],
      [null, 7],
    ]);
  });

  it('lists every container seen in the history with its latest entry', () => {
    const samples = [
      sample(0, [container('gone', 3)]),
      sample(2000, [container('a', 1)]),
      sample(4000, [container('a', 2)]),
    ];
    const known = knownUsages(samples, 'containers');
    expect([...known.keys()]).toEqual(['gone', 'a']);
    expect(known.get('a')?.cpuPercent).toBe(2);
  });
});

describe('formatting', () => {
  it('shows CPU with the digits that matter', () => {
    expect(formatCpu(0)).toBe('0%');
    expect(formatCpu(0.042)).toBe('0.04%');
    expect(formatCpu(3.21)).toBe('3.2%');
    expect(formatCpu(48.4)).toBe('48%');
    expect(formatCpu(198.2)).toBe('198%');
    expect(formatCpu(undefined)).toBe('—');
    expect(formatCpu(Number.NaN)).toBe('—');
  });

  it('shows memory in binary units', () => {
    expect(formatMemory(1536)).toBe('1.50 KiB');
    expect(formatMemory(undefined)).toBe('—');
  });

  it('finds the latest value that is not a gap', () => {
    expect(latestValue([1, 2, undefined])).toBe(2);
    expect(latestValue([undefined])).toBeUndefined();
    expect(latestValue(undefined)).toBeUndefined();
  });
});
