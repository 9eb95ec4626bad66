import { describe, expect, it } from 'vitest';
import { TransferRecord } from './progress';

function record(clock: { now: number }): TransferRecord {
  return new TransferRecord(
    {
      transferId: 't',
      direction: 'upload',
      nodeId: 'n',
      containerId: 'c',
      containerName: 'box',
      path: '/data',
      fileName: 'big.bin',
      method: 'tar',
      via: 'direct',
      crictl: 'crictl …',
    },
    () => clock.now,
  );
}

describe('TransferRecord', () => {
  it('marks the end of the bytes phase once, and keeps the rate of that phase', () => {
    const clock = { now: 0 };
    const transfer = record(clock);
    expect(transfer.verifying()).toBe(false);
    transfer.running();
    clock.now = 1000;
    transfer.count(2_000_000);
    clock.now = 2000;
    expect(transfer.verifying()).toBe(true);
    expect(transfer.verifying()).toBe(false);
    expect(transfer.snapshot()).toMatchObject({
      state: 'verifying',
      bytesDoneAt: 2000,
      rate: 1_000_000,
    });
    // The check takes as long again: the rate stays the bytes' own.
    clock.now = 4000;
    transfer.end('done');
    expect(transfer.snapshot()).toMatchObject({ state: 'done', endedAt: 4000, rate: 1_000_000 });
  });
});
