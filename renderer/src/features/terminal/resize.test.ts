import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ResizeDebouncer } from './resize';

describe('ResizeDebouncer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends only the size a drag settles on, 100 ms after the last change', () => {
    const send = vi.fn();
    const sizes = new ResizeDebouncer(send, 100);
    sizes.opened(80, 24);
    sizes.request(81, 24);
    vi.advanceTimersByTime(60);
    sizes.request(90, 30);
    vi.advanceTimersByTime(60);
    sizes.request(100, 40);
    vi.advanceTimersByTime(99);
    expect(send).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(send).toHaveBeenCalledExactlyOnceWith(100, 40);
  });

  it('never sends the size open carried, nor the same size twice', () => {
    const send = vi.fn();
    const sizes = new ResizeDebouncer(send, 100);
    sizes.opened(120, 40);
    sizes.request(120, 40);
    vi.advanceTimersByTime(200);
    expect(send).not.toHaveBeenCalled();
    sizes.request(100, 40);
    vi.advanceTimersByTime(100);
    sizes.request(100, 40);
    vi.advanceTimersByTime(100);
    expect(send).toHaveBeenCalledExactlyOnceWith(100, 40);
  });

  it('ignores empty sizes (a hidden pane) and stops on dispose', () => {
    const send = vi.fn();
    const sizes = new ResizeDebouncer(send, 100);
    sizes.opened(80, 24);
    sizes.request(0, 0);
    sizes.request(90, 0);
    vi.advanceTimersByTime(200);
    sizes.request(90, 30);
    sizes.dispose();
    vi.advanceTimersByTime(200);
    expect(send).not.toHaveBeenCalled();
  });

  it('flushes a pending size at once', () => {
    const send = vi.fn();
    const sizes = new ResizeDebouncer(send, 100);
    sizes.opened(80, 24);
    sizes.request(90, 30);
    sizes.flush();
    expect(send).toHaveBeenCalledExactlyOnceWith(90, 30);
    vi.advanceTimersByTime(200);
    expect(send).toHaveBeenCalledOnce();
  });
});
