import { describe, expect, it, vi } from 'vitest';
import { DisposableStore, MutableDisposable, toDisposable, type Disposable } from './lifecycle';

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

describe('MutableDisposable', () => {
  it('disposes the old value when a new one is set, and the last one with itself', () => {
    const holder = new MutableDisposable<Disposable>();
    const first = vi.fn();
    const second = vi.fn();
    holder.value = toDisposable(first);
    holder.value = toDisposable(second);
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).not.toHaveBeenCalled();
    holder.dispose();
    expect(second).toHaveBeenCalledTimes(1);
    expect(holder.value).toBeUndefined();
  });

  it('disposes a value set after the holder itself was disposed', () => {
    const holder = new MutableDisposable<Disposable>();
    holder.dispose();
    const late = vi.fn();
    holder.value = toDisposable(late);
    expect(late).toHaveBeenCalledTimes(1);
    expect(holder.value).toBeUndefined();
  });

  it('hands its value over without disposing it on take, and clears by disposing', () => {
    const holder = new MutableDisposable<Disposable>();
    const kept = vi.fn();
    const cleared = vi.fn();
    const value = toDisposable(kept);
    holder.value = value;
    expect(holder.take()).toBe(value);
    holder.dispose();
    expect(kept).not.toHaveBeenCalled();
    const other = new MutableDisposable<Disposable>();
    other.value = toDisposable(cleared);
    other.clear();
    expect(cleared).toHaveBeenCalledTimes(1);
    expect(other.value).toBeUndefined();
  });
});
