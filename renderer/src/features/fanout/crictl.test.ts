import { describe, expect, it } from 'vitest';
import { fanoutCrictlLines } from './crictl';

const target = (nodeId: string) => ({ endpoint: `unix:///${nodeId}.sock` });
const sync = { method: 'exec-sync', reason: '' } as const;

describe('fanoutCrictlLines', () => {
  it('gives one crictl exec --parallel per node, with the label filters and --sync', () => {
    const lines = fanoutCrictlLines(
      {
        targets: { kind: 'labels', selector: 'app=web' },
        command: ['hostname'],
        timeoutSeconds: 10,
      },
      sync,
      ['a', 'b'],
      target,
    );
    expect(lines).toEqual([
      {
        nodeId: 'a',
        command:
          'crictl --runtime-endpoint unix:///a.sock exec --label app=web --state running --parallel --sync --timeout 10 hostname',
      },
      {
        nodeId: 'b',
        command:
          'crictl --runtime-endpoint unix:///b.sock exec --label app=web --state running --parallel --sync --timeout 10 hostname',
      },
    ]);
  });

  it('says which label terms crictl cannot take', () => {
    const [line] = fanoutCrictlLines(
      {
        targets: { kind: 'labels', selector: 'app=web,env!=prod,canary' },
        command: ['true'],
        timeoutSeconds: 0,
      },
      { method: 'stream', reason: '' },
      ['a'],
      target,
    );
    expect(line?.command).toBe(
      'crictl --runtime-endpoint unix:///a.sock exec --label app=web --state running --parallel true',
    );
    expect(line?.note).toBe(
      "crictl's --label takes key=value only: without env!=prod, canary it runs on more containers.",
    );
  });

  it('runs a chosen set one container at a time, per node', () => {
    const lines = fanoutCrictlLines(
      {
        targets: {
          kind: 'selection',
          containers: [
            { nodeId: 'a', containerId: 'c1' },
            { nodeId: 'a', containerId: 'c2' },
          ],
        },
        command: ['sh', '-c', 'echo hi'],
        timeoutSeconds: 5,
      },
      sync,
      ['a'],
      target,
    );
    expect(lines[0]?.command).toBe(
      [
        "crictl --runtime-endpoint unix:///a.sock exec --sync --timeout 5 c1 sh -c 'echo hi'",
        "crictl --runtime-endpoint unix:///a.sock exec --sync --timeout 5 c2 sh -c 'echo hi'",
      ].join('\n'),
    );
  });
});
