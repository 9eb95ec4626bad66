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
}

export interface ToastState {
  readonly toasts: readonly Toast[];
  readonly show: (toast: Omit<Toast, 'id'>) => number;
  readonly dismiss: (id: number) => void;
}

/** How long a success stays; errors stay until dismissed, so nobody misses one. */
export const toastLifetimeMs = 5000;
const maxToasts = 5;

export function createToastStore(): StoreApi<ToastState> {
  let nextId = 1;
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  return createStore<ToastState>()((set, get) => ({
    toasts: [],
    show(toast) {
      const id = nextId++;
      set((state) => ({ toasts: [...state.toasts, { ...toast, id }].slice(-maxToasts) }));
      if (toast.tone !== 'error') {
        timers.set(
          id,
          setTimeout(() => get().dismiss(id), toastLifetimeMs),
        );
      }
      return id;
    },
    dismiss(id) {
      const timer = timers.get(id);
      if (timer !== undefined) clearTimeout(timer);
      timers.delete(id);
      set((state) => ({ toasts: state.toasts.filter((toast) => toast.id !== id) }));
    },
  }));
}
