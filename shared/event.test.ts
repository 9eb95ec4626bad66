import { afterEach, describe, expect, it, vi } from 'vitest';
import { Emitter, setListenerErrorHandler } from './event';
import type { Disposable } from './lifecycle';

describe('Emitter', () => {
  let handler: Disposable | undefined;
  afterEach(() => handler?.dispose());

  it('fires to each subscription until it is disposed', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    const listener = (value: number): number => seen.push(value);
    const first = emitter.event(listener);
    emitter.event(listener);
    emitter.fire(1);
    first.dispose();
    emitter.fire(2);
    expect(seen).toEqual([1, 1, 2]);
  });

  it('does not call a listener that another one unsubscribed during the same fire', () => {
    const emitter = new Emitter<void>();
    const late = vi.fn();
    const subscriptions: Disposable[] = [];
    emitter.event(() => subscriptions.forEach((subscription) => subscription.dispose()));
    subscriptions.push(emitter.event(late));
    emitter.fire();
    expect(late).not.toHaveBeenCalled();
    expect(emitter.hasListeners).toBe(true);
  });

  it('keeps firing past a listener that throws, and reports the error', () => {
    const errors: unknown[] = [];
    handler = setListenerErrorHandler((error) => errors.push(error));
    const emitter = new Emitter<string>();
    const after = vi.fn();
    emitter.event(() => {
      throw new Error('listener bug');
    });
    emitter.event(after);
    expect(() => emitter.fire('x')).not.toThrow();
    expect(after).toHaveBeenCalledWith('x');
    expect(errors).toEqual([new Error('listener bug')]);
  });

  it('drops its listeners when disposed, and takes no new ones', () => {
    const emitter = new Emitter<number>();
    const listener = vi.fn();
    emitter.event(listener);
    emitter.dispose();
    emitter.event(listener).dispose();
    emitter.fire(1);
    expect(listener).not.toHaveBeenCalled();
    expect(emitter.hasListeners).toBe(false);
  });
});
