import type { StoreApi } from 'zustand/vanilla';
import { toAppErrorData } from '../../../shared/errors';
import { DisposableStore } from '../../../shared/lifecycle';
import type { Disposable, PortholeClient } from '../platform';
import { createNodesStore, type NodesStore } from '../features/nodes/nodes-store';
import {
  createResourcesStore,
  type FrameScheduler,
  type ResourcesStore,
} from '../features/resources/resources-store';
import { RowCache, sandboxImagesOf } from '../features/resources/rows';
import { createResourceViewStore, type ResourceViewStore } from '../features/resources/view-store';
import { createToastStore, type ToastState } from '../ui/toasts';
import type { FeatureState } from './feature-state';
import { createUiStore, type UiStore } from './ui-store';

/** Everything the UI holds for one connection to the core; created once per window. */
export interface AppModel extends Disposable {
  readonly client: PortholeClient;
  readonly nodes: NodesStore;
  readonly resources: ResourcesStore;
  readonly resourceViews: ResourceViewStore;
  readonly ui: UiStore;
  readonly toasts: StoreApi<ToastState>;
  readonly rows: RowCache;
  /**
   * State a feature keeps for the window's lifetime (open terminals, the session list…),
   * created on first use and disposed with the model. Views come and go; this stays.
   */
  featureState<T extends Disposable>(key: FeatureState<T>): T;
}

export interface AppModelOptions {
  readonly initialView?: string;
  readonly schedule?: FrameScheduler;
}

export function createAppModel(client: PortholeClient, options: AppModelOptions = {}): AppModel {
  const nodes = createNodesStore(client);
  const resources = createResourcesStore(client, nodes, options.schedule);
  const resourceViews = createResourceViewStore();
  const rows = new RowCache();
  const stopWarming = warmRowsWhenIdle(resources, nodes, resourceViews, rows);
  const toasts = createToastStore();
  // A node that connected takes its "Could not connect" toasts away.
  const stopClearing = nodes.subscribe((state, previous) => {
    for (const node of state.nodes) {
      if (node.state !== 'connected') continue;
      const before = previous.nodes.find((candidate) => candidate.nodeId === node.nodeId);
      if (before?.state !== 'connected') toasts.getState().dismissTopic(nodeTopic(node.nodeId));
    }
  });
  // Newest first on dispose: a state created from another's goes before it.
  const featureStates = new DisposableStore();
  const featureNames = new Map<string, unknown>();
  const model: AppModel = {
    client,
    nodes,
    resources,
    resourceViews,
    ui: createUiStore(options.initialView ?? 'nodes'),
    toasts,
    rows,
    featureState<T extends Disposable>(key: FeatureState<T>): T {
      const named = featureNames.get(key.name);
      if (named === undefined) featureNames.set(key.name, key);
      else if (named !== key) throw new Error(`Two feature states are named "${key.name}"`);
      return key.instanceIn(model, featureStates);
    },
    dispose() {
      featureStates.dispose();
      stopWarming();
      stopClearing();
      resources.dispose();
      nodes.dispose();
    },
  };
  return model;
}

/**
 * Builds and sorts every table's rows while the app is idle after data arrives, so that
 * opening a view with thousands of rows only has to render what is visible.
 */
function warmRowsWhenIdle(
  resources: ResourcesStore,
  nodes: NodesStore,
  views: ResourceViewStore,
  rows: RowCache,
): () => void {
  const idle =
    typeof requestIdleCallback === 'function'
      ? (run: () => void) => {
          const handle = requestIdleCallback(run, { timeout: 2000 });
          return () => cancelIdleCallback(handle);
        }
      : (run: () => void) => {
          const handle = setTimeout(run, 50);
          return () => clearTimeout(handle);
        };
  let cancel: (() => void) | undefined;
  const unsubscribe = resources.subscribe(() => {
    cancel?.();
    cancel = idle(() => {
      cancel = undefined;
      const { index } = resources.getState();
      const { byKind } = views.getState();
      rows.sorted('pods', rows.podRows(index), byKind.pods.sort);
      rows.sorted('containers', rows.containerRows(index), byKind.containers.sort);
      rows.sorted(
        'images',
        rows.imageRows(index, sandboxImagesOf(nodes.getState().nodes)),
        byKind.images.sort,
      );
    });
  });
  return () => {
    cancel?.();
    unsubscribe();
  };
}

/** The toast topic of everything about one node: connecting, disconnecting, removing it. */
export function nodeTopic(nodeId: string): string {
  return `node:${nodeId}`;
}

export interface ActionOptions<T> {
  /** Toast title on success; none when the UI already shows the outcome. */
  readonly success?: string | ((result: T) => string);
  /** Toast title on failure, e.g. "Could not stop web-1". */
  readonly failure: string;
  /**
   * What the action is about (see Toast.topic): its failure replaces an earlier one, and
   * its success takes earlier failures away.
   */
  readonly topic?: string;
}

/**
 * Runs a user action and reports how it went: nothing a user asked for fails silently.
 * Resolves to the result, or undefined when it failed (the toast has said why).
 */
export async function runAction<T>(
  model: AppModel,
  action: () => Promise<T>,
  options: ActionOptions<T>,
): Promise<T | undefined> {
  try {
    const result = await action();
    const topic = options.topic;
    if (options.success !== undefined) {
      const title =
        typeof options.success === 'function' ? options.success(result) : options.success;
      model.toasts.getState().show({ tone: 'success', title, ...(topic && { topic }) });
    } else if (topic !== undefined) {
      model.toasts.getState().dismissTopic(topic);
    }
    return result;
  } catch (error) {
    model.toasts.getState().show({
      tone: 'error',
      title: options.failure,
      error: toAppErrorData(error),
      ...(options.topic !== undefined && { topic: options.topic }),
    });
    return undefined;
  }
}
