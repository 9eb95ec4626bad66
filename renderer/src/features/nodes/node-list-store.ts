import { createStore, type StoreApi } from 'zustand/vanilla';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import type { Disposable } from '../../platform';
import type { NodeGrouping } from './fleet';

/** How the user arranged the Nodes view: kept while the window lives, across views. */
export interface NodeListState {
  readonly query: string;
  readonly grouping: NodeGrouping;
  /** Ids of collapsed groups (`NodeGroup.id`), whatever the grouping. */
  readonly collapsed: ReadonlySet<string>;
  readonly setQuery: (query: string) => void;
  readonly setGrouping: (grouping: NodeGrouping) => void;
  readonly toggle: (groupId: string) => void;
  /** Collapses every group given, or expands them all. */
  readonly setAllCollapsed: (groupIds: readonly string[], collapsed: boolean) => void;
  /** A node to bring on screen and focus (one just added or saved), until the list has. */
  readonly revealing: string | undefined;
  readonly reveal: (nodeId: string | undefined) => void;
}

export interface NodeListFeature extends Disposable {
  readonly store: StoreApi<NodeListState>;
}

export function createNodeListStore(): StoreApi<NodeListState> {
  return createStore<NodeListState>()((set) => ({
    query: '',
    grouping: 'state',
    collapsed: new Set<string>(),
    setQuery: (query) => set({ query }),
    setGrouping: (grouping) => set({ grouping }),
    toggle: (groupId) =>
      set((state) => {
        const collapsed = new Set(state.collapsed);
        if (!collapsed.delete(groupId)) collapsed.add(groupId);
        return { collapsed };
      }),
    setAllCollapsed: (groupIds, collapse) =>
      set((state) => {
        const collapsed = new Set(state.collapsed);
        for (const id of groupIds) {
          if (collapse) collapsed.add(id);
          else collapsed.delete(id);
        }
        return { collapsed };
      }),
    revealing: undefined,
    reveal: (revealing) => set({ revealing }),
  }));
}

const nodeListState = new FeatureState<NodeListFeature>('node-list', () => ({
  store: createNodeListStore(),
  dispose: () => undefined,
}));

export function nodeListOf(model: AppModel): NodeListFeature {
  return model.featureState(nodeListState);
}
