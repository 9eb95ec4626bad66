import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToastStore, toastLifetimeMs } from './toasts';

const refused = { code: 'unavailable' as const, message: 'No runtime is listening at /x.sock.' };

describe('toasts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows the same toast once, counting, instead of stacking it', () => {
    const store = createToastStore();
    const first = store
      .getState()
      .show({ tone: 'error', title: 'Could not connect', error: refused });
    const again = store
      .getState()
      .show({ tone: 'error', title: 'Could not connect', error: refused });
    expect(again).toBe(first);
    expect(store.getState().toasts).toEqual([
      expect.objectContaining({ id: first, count: 2, title: 'Could not connect' }),
    ]);
    store.getState().show({ tone: 'error', title: 'Could not stop web' });
    expect(store.getState().toasts.map((toast) => toast.title)).toEqual([
      'Could not connect',
      'Could not stop web',
    ]);
  });

  it('lets a newer toast on a topic replace the older, and the topic succeeding clear it', () => {
    const store = createToastStore();
    store.getState().show({ tone: 'error', title: 'Could not connect to a', topic: 'node:a' });
    store.getState().show({ tone: 'error', title: 'Could not connect to b', topic: 'node:b' });
    store.getState().show({
      tone: 'error',
      title: 'Could not connect to a',
      error: refused,
      topic: 'node:a',
    });
    expect(store.getState().toasts.map((toast) => [toast.title, toast.error?.message])).toEqual([
      ['Could not connect to b', undefined],
      ['Could not connect to a', refused.message],
    ]);
    store.getState().dismissTopic('node:a');
    expect(store.getState().toasts.map((toast) => toast.topic)).toEqual(['node:b']);
    store.getState().show({ tone: 'success', title: 'Disconnected from b', topic: 'node:b' });
    expect(store.getState().toasts.map((toast) => toast.title)).toEqual(['Disconnected from b']);
    vi.advanceTimersByTime(toastLifetimeMs);
    expect(store.getState().toasts).toEqual([]);
  });

  it('keeps a toast while it is hovered or focused, then gives it its lifetime again', () => {
    const store = createToastStore();
    const id = store.getState().show({ tone: 'success', title: 'Stopped web' });
    store.getState().hold(id, true);
    vi.advanceTimersByTime(toastLifetimeMs * 3);
    expect(store.getState().toasts.map((toast) => toast.id)).toEqual([id]);
    store.getState().hold(id, false);
    vi.advanceTimersByTime(toastLifetimeMs - 1);
    expect(store.getState().toasts).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.getState().toasts).toEqual([]);
  });
});
