import { describe, expect, it, vi } from 'vitest';
import { DisposableStore, toDisposable } from './lifecycle';

describe('toDisposable', () => {
  it('runs its function once however often it is disposed', () => {
    const fn = vi.fn();
    const disposable = toDisposable(fn);
    disposable.dispose();
    disposable.dispose();
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('DisposableStore', () => {
  it('disposes its items newest first', () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => order.push('first')));
    store.add(toDisposable(() => order.push('second')));
    store.dispose();
    expect(order).toEqual(['second', 'first']);
    expect(store.isDisposed).toBe(true);
  });

  it('disposes an item added after the store itself was disposed', () => {
    const store = new DisposableStore();
    store.dispose();
    const late = vi.fn();
    store.add(toDisposable(late));
    expect(late).toHaveBeenCalledTimes(1);
  });

  it('disposes every item even when one throws, then reports the failure', () => {
    const store = new DisposableStore();
    const survivor = vi.fn();
    store.add(toDisposable(survivor));
    store.add(
      toDisposable(() => {
        throw new Error('boom');
      }),
    );
    expect(() => store.dispose()).toThrow('boom');
    expect(survivor).toHaveBeenCalledTimes(1);
  });

  it('lets ownership move out with delete()', () => {
    const store = new DisposableStore();
    const fn = vi.fn();
    const item = store.add(toDisposable(fn));
    store.delete(item);
    store.dispose();
    expect(fn).not.toHaveBeenCalled();
  });
});
