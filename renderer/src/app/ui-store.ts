import type { ReactElement } from 'react';
import { createStore, type StoreApi } from 'zustand/vanilla';

/**
 * A modal dialog: whoever opens it renders it. Keeping the render function here (rather
 * than a union of known dialogs) lets any feature open its own dialogs.
 */
export interface DialogEntry {
  readonly key: string;
  render(close: () => void): ReactElement;
}

export type ThemePreference = 'system' | 'light' | 'dark';

export interface UiState {
  readonly view: string;
  readonly paletteOpen: boolean;
  readonly dialog?: DialogEntry;
  readonly theme: ThemePreference;
  readonly navigate: (view: string) => void;
  readonly setPaletteOpen: (open: boolean) => void;
  readonly openDialog: (dialog: DialogEntry) => void;
  readonly closeDialog: () => void;
  readonly setTheme: (theme: ThemePreference) => void;
}

export type UiStore = StoreApi<UiState>;

export function createUiStore(initialView: string): UiStore {
  return createStore<UiState>()((set) => ({
    view: initialView,
    paletteOpen: false,
    theme: 'system',
    navigate: (view) => set({ view }),
    setPaletteOpen: (paletteOpen) => set({ paletteOpen }),
    openDialog: (dialog) => set({ dialog, paletteOpen: false }),
    closeDialog: () => set({ dialog: undefined }),
    setTheme: (theme) => set({ theme }),
  }));
}
