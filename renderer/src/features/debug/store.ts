/**
 * The debug containers of every connected node, as the core lists them (by their label):
 * this Porthole's own, kept ones and leftovers. Read when the view opens, when a node
 * connects (a leftover from a crash shows without looking for it), and after each action.
 * Feature state on the AppModel.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type { DebugContainer } from '../../../../shared/model';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';

export const debugViewId = 'debug';

export interface DebugRow extends DebugContainer {
  readonly key: string;
  readonly nodeName: string;
}

export interface DebugState {
  readonly rows: readonly DebugRow[];
  readonly loaded: boolean;
  /** Nodes whose list could not be read, and why. */
  readonly errors: readonly { readonly nodeName: string; readonly error: AppErrorData }[];
  readonly selectedKey?: string;
}

export interface DebugFeature extends Disposable {
  readonly store: StoreApi<DebugState>;
  refresh(): Promise<void>;
}

export function debugKey(nodeId: string, containerId: string): string {
  return `${nodeId}/${containerId}`;
}

function createDebugFeature(model: AppModel): DebugFeature {
  const store = createStore<DebugState>()(() => ({ rows: [], loaded: false, errors: [] }));
  let generation = 0;
  const refresh = async (): Promise<void> => {
    const mine = ++generation;
    const connected = model.nodes.getState().nodes.filter((node) => node.state === 'connected');
    const lists = await Promise.all(
      connected.map(async (node) => {
        try {
          const containers = await model.client.services.debug.list(node.nodeId);
          return {
            rows: containers.map((container) => ({
              ...container,
              key: debugKey(container.nodeId, container.containerId),
              nodeName: node.name,
            })),
          };
        } catch (error) {
          return { rows: [], error: { nodeName: node.name, error: toAppErrorData(error) } };
        }
      }),
    );
    if (mine !== generation) return;
    store.setState({
      rows: lists.flatMap((list) => list.rows),
      errors: lists.flatMap((list) => (list.error === undefined ? [] : [list.error])),
      loaded: true,
    });
  };
  // A node that connects may hold leftovers: look once it is up.
  let connectedIds = '';
  const onNodes = (state: ReturnType<typeof model.nodes.getState>): void => {
    const ids = state.nodes
      .filter((node) => node.state === 'connected')
      .map((node) => node.nodeId)
      .join('\n');
    if (ids === connectedIds) return;
    connectedIds = ids;
    void refresh();
  };
  const unsubscribe = model.nodes.subscribe(onNodes);
  onNodes(model.nodes.getState());
  return { store, refresh, dispose: unsubscribe };
}

const debugState = new FeatureState('debug', createDebugFeature);

export function debugOf(model: AppModel): DebugFeature {
  return model.featureState(debugState);
}
