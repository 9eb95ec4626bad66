import { useCallback, useMemo } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';

/** Which row of a TableView is selected, and what selecting and opening one do. */
export interface TableSelection {
  readonly key: string | undefined;
  /** Click, arrow keys, j/k: the row becomes the selected one. */
  readonly select: (key: string) => void;
  /** Enter, double click: its details open. Selecting is all a view without more does. */
  readonly open?: (key: string) => void;
  /** Esc, the close button: no row's details show. */
  readonly close: () => void;
}

/**
 * The selection of a table whose feature store keeps it (`selectedKey`, the row whose
 * details show under the table), so it survives leaving the view and coming back.
 */
export function useStoredSelection<S extends { readonly selectedKey?: string | undefined }>(
  store: StoreApi<S>,
): TableSelection {
  const key = useStore(store, (state) => state.selectedKey);
  const select = useCallback(
    (selected: string) => store.setState((state) => ({ ...state, selectedKey: selected })),
    [store],
  );
  const close = useCallback(
    () => store.setState((state) => ({ ...state, selectedKey: undefined })),
    [store],
  );
  return useMemo(() => ({ key, select, close }), [key, select, close]);
}
