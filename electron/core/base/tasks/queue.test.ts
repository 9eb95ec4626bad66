import { describe, expect, it } from 'vitest';
import { TaskQueue } from './queue';

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('TaskQueue', () => {
  it('starts tasks in call order, at most `concurrency` at once, whatever their outcome', async () => {
    const queue = new TaskQueue(2);
    const started: string[] = [];
    let running = 0;
    let peak = 0;
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        started.push(name);
        peak = Math.max(peak, ++running);
        await tick(ms);
        running--;
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run(task('a', 30)),
      queue.run(task('b', 5, true)),
      queue.run(task('c', 5)),
      queue.run(task('d', 1)),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(peak).toBe(2);
  });

  it('with concurrency 1 runs one task after another', async () => {
    const queue = new TaskQueue(1);
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await tick(ms);
      log.push(`end ${name}`);
    };
    await Promise.all([queue.run(task('a', 20)), queue.run(task('b', 1))]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});

describe('TaskQueue hand-over', () => {
  it('never lets a newcomer overtake a waiting task', async () => {
    const queue = new TaskQueue(1);
    const started: string[] = [];
    const first = queue.run(async () => {
      started.push('first');
      await tick(5);
    });
    const second = queue.run(async () => {
      started.push('second');
      await tick(1);
    });
    await first;
    // Called in the same tick as the hand-over to `second`.
    const third = queue.run(async () => {
      started.push('third');
      await tick(1);
    });
    await Promise.all([second, third]);
    expect(started).toEqual(['first', 'second', 'third']);
  });
});
