import { createStore, type StoreApi } from 'zustand/vanilla';
import { emptyFilter, type ResourceFilter } from './filter';
import type { ResourceKind } from './model';
import { defaultSort, type SortState } from './sort';

export interface KindViewState {
  readonly filter: ResourceFilter;
  readonly sort: SortState;
  /** The selected row's key: kept across updates, so live deltas never steal it. */
  readonly selectedKey?: string;
}

export interface OpenDetail {
  readonly kind: ResourceKind;
  readonly key: string;
}

export interface ResourceViewState {
  readonly byKind: Readonly<Record<ResourceKind, KindViewState>>;
  readonly detail?: OpenDetail;
  /** The detail pane's width in pixels, as the user dragged it. */
  readonly detailWidth: number;
  readonly setFilter: (kind: ResourceKind, patch: Partial<ResourceFilter>) => void;
  readonly clearFilter: (kind: ResourceKind) => void;
  readonly setSort: (kind: ResourceKind, sort: SortState) => void;
  readonly select: (kind: ResourceKind, key: string | undefined) => void;
  readonly openDetail: (kind: ResourceKind, key: string) => void;
  readonly closeDetail: () => void;
  readonly setDetailWidth: (width: number) => void;
}

export const detailWidthBounds = { min: 320, max: 1100, initial: 480 } as const;

const initialKind = (kind: ResourceKind): KindViewState => ({
  filter: emptyFilter,
  sort: defaultSort[kind],
});

export type ResourceViewStore = StoreApi<ResourceViewState>;

export function createResourceViewStore(): ResourceViewStore {
  const update = (
    state: ResourceViewState,
    kind: ResourceKind,
    patch: Partial<KindViewState>,
  ): Pick<ResourceViewState, 'byKind'> => ({
    byKind: { ...state.byKind, [kind]: { ...state.byKind[kind], ...patch } },
  });
  return createStore<ResourceViewState>()((set) => ({
    byKind: {
      pods: initialKind('pods'),
      containers: initialKind('containers'),
      images: initialKind('images'),
    },
    detailWidth: detailWidthBounds.initial,
    setFilter: (kind, patch) =>
      set((state) => update(state, kind, { filter: { ...state.byKind[kind].filter, ...patch } })),
    clearFilter: (kind) => set((state) => update(state, kind, { filter: emptyFilter })),
    setSort: (kind, sort) => set((state) => update(state, kind, { sort })),
    select: (kind, key) =>
      set((state) => ({
        ...update(state, kind, { selectedKey: key }),
        // The pane follows the selection once it is open, like a file manager's preview.
        ...(state.detail?.kind === kind && key !== undefined && { detail: { kind, key } }),
      })),
    openDetail: (kind, key) =>
      set((state) => ({ ...update(state, kind, { selectedKey: key }), detail: { kind, key } })),
    closeDetail: () => set({ detail: undefined }),
    setDetailWidth: (width) =>
      set({
        detailWidth: Math.round(
          Math.min(detailWidthBounds.max, Math.max(detailWidthBounds.min, width)),
        ),
      }),
  }));
}
