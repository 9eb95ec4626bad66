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
  /**
   * The shortcuts of one key without a modifier (`/`, `j`, `k`, `?`): a speech-input user can
   * trigger them by accident, so they can be turned off (WCAG 2.1.4). Kept across sessions.
   */
  readonly singleKeyShortcuts: boolean;
  /**
   * The sidebar drawn over the view, in a window too narrow to keep it beside the view
   * (see narrowShell in Sidebar.tsx). Choosing a view closes it.
   */
  readonly navOpen: boolean;
  readonly navigate: (view: string) => void;
  readonly setPaletteOpen: (open: boolean) => void;
  readonly openDialog: (dialog: DialogEntry) => void;
  readonly closeDialog: () => void;
  readonly setTheme: (theme: ThemePreference) => void;
  readonly setSingleKeyShortcuts: (on: boolean) => void;
  readonly setNavOpen: (open: boolean) => void;
}

/** The top bar's Menu button, which opens the sidebar in a narrow window. */
export const menuToggleId = 'menu-toggle';

const singleKeyStorageKey = 'porthole.singleKeyShortcuts';

function storedSingleKeyShortcuts(): boolean {
  try {
    return globalThis.localStorage?.getItem(singleKeyStorageKey) !== 'off';
  } catch {
    return true; // storage disabled: the default
  }
}

export type UiStore = StoreApi<UiState>;

export function createUiStore(initialView: string): UiStore {
  return createStore<UiState>()((set) => ({
    view: initialView,
    paletteOpen: false,
    theme: 'system',
    singleKeyShortcuts: storedSingleKeyShortcuts(),
    navOpen: false,
    navigate: (view) => set({ view, navOpen: false }),
    setPaletteOpen: (paletteOpen) => set({ paletteOpen }),
    openDialog: (dialog) => set({ dialog, paletteOpen: false }),
    closeDialog: () => set({ dialog: undefined }),
    setTheme: (theme) => set({ theme }),
    setSingleKeyShortcuts: (singleKeyShortcuts) => {
      try {
        globalThis.localStorage?.setItem(singleKeyStorageKey, singleKeyShortcuts ? 'on' : 'off');
      } catch {
        // Full or disabled storage: the choice holds for this window.
      }
      set({ singleKeyShortcuts });
    },
    setNavOpen: (navOpen) => set({ navOpen }),
  }));
}
