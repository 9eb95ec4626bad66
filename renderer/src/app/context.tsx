import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { NodesState } from '../features/nodes/nodes-store';
import type { ResourcesState } from '../features/resources/resources-store';
import type { ResourceViewState } from '../features/resources/view-store';
import type { AppModel } from './model';
import type { ResourceActions } from './registry';
import type { UiState } from './ui-store';

const ModelContext = createContext<AppModel | null>(null);

export function ModelProvider({ model, children }: { model: AppModel; children: ReactNode }) {
  return <ModelContext.Provider value={model}>{children}</ModelContext.Provider>;
}

export function useModel(): AppModel {
  const model = useContext(ModelContext);
  if (model === null) throw new Error('useModel() outside <ModelProvider>');
  return model;
}

export function useNodes<T>(selector: (state: NodesState) => T): T {
  return useStore(useModel().nodes, selector);
}

export function useResources<T>(selector: (state: ResourcesState) => T): T {
  return useStore(useModel().resources, selector);
}

export function useResourceViews<T>(selector: (state: ResourceViewState) => T): T {
  return useStore(useModel().resourceViews, selector);
}

export function useUi<T>(selector: (state: UiState) => T): T {
  return useStore(useModel().ui, selector);
}

const ResourceActionsContext = createContext<ResourceActions>({ pods: [], containers: [] });

/** Supplies the actions features offer on pods and containers (see `features.ts`). */
export const ResourceActionsProvider = ResourceActionsContext.Provider;

export function useResourceActions(): ResourceActions {
  return useContext(ResourceActionsContext);
}
