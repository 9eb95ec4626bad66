import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../shared/errors';

export type ToastTone = 'success' | 'info' | 'error';

export interface Toast {
  readonly id: number;
  readonly tone: ToastTone;
  readonly title: string;
  /** For errors: the AppError, shown as message + hint + detail. */
  readonly error?: AppErrorData;
  readonly body?: string;
  /**
   * What the toast is about: a node (`node:<id>`) or an action on a thing
   * (`stop:<container key>`). A newer toast on the same topic replaces it, and the topic
   * succeeding (dismissTopic) takes its errors away: a "Could not connect" toast does not
   * outlive the node connecting.
   */
  readonly topic?: string;
  /** How many times the same toast was shown while it was up. */
  readonly count: number;
}

export type ToastInput = Omit<Toast, 'id' | 'count'>;

export interface ToastState {
  readonly toasts: readonly Toast[];
  readonly show: (toast: ToastInput) => number;
  readonly dismiss: (id: number) => void;
  /**
   * While the pointer is over a toast or the focus in it, it stays (WCAG 2.2.1); let go,
   * it has its whole lifetime again.
   */
  readonly hold: (id: number, held: boolean) => void;
  /** Takes away every toast about `topic` (it succeeded, or no longer matters). */
  readonly dismissTopic: (topic: string) => void;
}

/** How long a success stays; errors stay until dismissed, so nobody misses one. */
export const toastLifetimeMs = 5000;
const maxToasts = 5;

/** Toasts that say the same thing are one toast, shown again (with a count), not a stack. */
function sameToast(a: ToastInput, b: ToastInput): boolean {
  return (
    a.tone === b.tone &&
    a.title === b.title &&
    a.body === b.body &&
    a.error?.message === b.error?.message &&
    a.error?.hint === b.error?.hint
  );
}

export function createToastStore(): StoreApi<ToastState> {
  let nextId = 1;
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  const held = new Set<number>();
  let dismissLater: (id: number) => void = () => undefined;
  const startTimer = (id: number): void => {
    timers.set(
      id,
      setTimeout(() => dismissLater(id), toastLifetimeMs),
    );
  };
  const stopTimer = (id: number): void => {
    const timer = timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    timers.delete(id);
  };
  const store = createStore<ToastState>()((set, get) => ({
    toasts: [],
    show(toast) {
      const current = get().toasts;
      const same = current.find((candidate) => sameToast(candidate, toast));
      const id = same?.id ?? nextId++;
      // What this one replaces: the same toast, and anything older on its topic.
      const replaced = current.filter(
        (candidate) =>
          candidate === same || (toast.topic !== undefined && candidate.topic === toast.topic),
      );
      for (const old of replaced) stopTimer(old.id);
      const kept = current.filter((candidate) => !replaced.includes(candidate));
      set({ toasts: [...kept, { ...toast, id, count: (same?.count ?? 0) + 1 }].slice(-maxToasts) });
      if (toast.tone !== 'error' && !held.has(id)) startTimer(id);
      return id;
    },
    hold(id, hold) {
      const toast = get().toasts.find((candidate) => candidate.id === id);
      if (toast === undefined) return;
      if (hold) {
        held.add(id);
        stopTimer(id);
      } else {
        held.delete(id);
        if (toast.tone !== 'error') startTimer(id);
      }
    },
    dismiss(id) {
      stopTimer(id);
      held.delete(id);
      set((state) => ({ toasts: state.toasts.filter((toast) => toast.id !== id) }));
    },
    dismissTopic(topic) {
      const gone = get().toasts.filter((toast) => toast.topic === topic);
      if (gone.length === 0) return;
      for (const toast of gone) stopTimer(toast.id);
      set((state) => ({ toasts: state.toasts.filter((toast) => toast.topic !== topic) }));
    },
  }));
  dismissLater = (id) => store.getState().dismiss(id);
  return store;
}
