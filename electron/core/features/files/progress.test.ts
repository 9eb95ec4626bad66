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

  it('gives the rate over the last few seconds, however many chunks came', () => {
    const clock = { now: 0 };
    const transfer = record(clock);
    transfer.running();
    // 10 s at 1 MB/s in 1 kB chunks, then 10 s at 3 MB/s.
    for (let ms = 1; ms <= 10_000; ms += 1) {
      clock.now = ms;
      transfer.count(1000);
    }
    for (let ms = 10_001; ms <= 20_000; ms += 1) {
      clock.now = ms;
      transfer.count(3000);
    }
    expect(transfer.snapshot().rate).toBeGreaterThan(2_900_000);
    expect(transfer.snapshot().rate).toBeLessThanOrEqual(3_000_000);
  });
});
