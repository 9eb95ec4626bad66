import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { ResourceDelta } from '../../../../shared/model';
import type { Disposable, PortholeClient } from '../../platform';
import { isFollowed, type NodesStore } from '../nodes/nodes-store';
import { applyDeltas, dropNode, emptyIndex, type ResourceIndex } from './delta';

export interface ResourcesState {
  readonly index: ResourceIndex;
  /** Nodes whose first snapshot (the reset) has arrived. */
  readonly loaded: ReadonlySet<string>;
  /** Why a node's resource stream ended; cleared when it is renewed. */
  readonly errors: Readonly<Record<string, AppErrorData>>;
  /** When each node's runtime was last read. */
  readonly updatedAt: Readonly<Record<string, number>>;
}

export interface ResourcesStore extends StoreApi<ResourcesState>, Disposable {
  /** Subscribes again to a node whose stream failed (the banner's "Retry"). */
  retry(nodeId: string): void;
}

/** Delivers queued work once per frame, or on a microtask where there are no frames. */
export type FrameScheduler = (flush: () => void) => void;

const defaultScheduler: FrameScheduler = (flush) => {
  if (typeof requestAnimationFrame === 'function') {
    requestAnimationFrame(flush);
  } else {
    queueMicrotask(flush);
  }
};

/**
 * Keeps one `resources` subscription per connected node and folds the deltas into one
 * index. Deltas are batched per frame: a burst of runtime events (a pod with ten
 * containers starting) becomes one store update and one render.
 */
export function createResourcesStore(
  client: PortholeClient,
  nodes: NodesStore,
  schedule: FrameScheduler = defaultScheduler,
): ResourcesStore {
  const store = createStore<ResourcesState>()(() => ({
    index: emptyIndex,
    loaded: new Set<string>(),
    errors: {},
    updatedAt: {},
  }));
  const subscriptions = new Map<string, Disposable>();
  /** Nodes we follow, including those whose stream failed (their data stays on screen). */
  const followed = new Set<string>();
  const pendingErrors = new Map<string, AppErrorData>();
  let queue: ResourceDelta[] = [];
  let flushScheduled = false;
  let disposed = false;

  const flush = (): void => {
    flushScheduled = false;
    if (disposed) return;
    if (pendingErrors.size > 0) {
      const failed = [...pendingErrors].filter(([nodeId]) => followed.has(nodeId));
      pendingErrors.clear();
      if (failed.length > 0) {
        store.setState((state) => ({ errors: { ...state.errors, ...Object.fromEntries(failed) } }));
      }
    }
    if (queue.length === 0) return;
    const deltas = queue;
    queue = [];
    store.setState((state) => {
      let loaded = state.loaded;
      const updatedAt = { ...state.updatedAt };
      // A late delta from a node we already unsubscribed from must not resurrect it.
      const live = deltas.filter((delta) => subscriptions.has(delta.nodeId));
      for (const delta of live) {
        updatedAt[delta.nodeId] = delta.updatedAt;
        if (delta.reset && !loaded.has(delta.nodeId)) {
          if (loaded === state.loaded) loaded = new Set(loaded);
          (loaded as Set<string>).add(delta.nodeId);
        }
      }
      // The whole batch at once: one copy of the index, however many nodes sent deltas.
      return { index: applyDeltas(state.index, live), loaded, updatedAt };
    });
  };

  const scheduleFlush = (): void => {
    if (!flushScheduled) {
      flushScheduled = true;
      schedule(flush);
    }
  };

  const enqueue = (delta: ResourceDelta): void => {
    queue.push(delta);
    scheduleFlush();
  };

  const subscribe = (nodeId: string): void => {
    followed.add(nodeId);
    store.setState((state) => {
      const { [nodeId]: _cleared, ...errors } = state.errors;
      return { errors };
    });
    const subscription = client.subscribe('resources', { nodeId }, enqueue, (error) => {
      if (subscriptions.get(nodeId) !== subscription) return;
      subscriptions.delete(nodeId);
      // Reported with the next batch: when a node is disconnected its stream ends just
      // before the node list says so, and that is not worth a flash of red.
      pendingErrors.set(nodeId, toAppErrorData(error));
      scheduleFlush();
    });
    subscriptions.set(nodeId, subscription);
  };

  const unsubscribe = (nodeId: string): void => {
    followed.delete(nodeId);
    pendingErrors.delete(nodeId);
    subscriptions.get(nodeId)?.dispose();
    subscriptions.delete(nodeId);
    store.setState((state) => {
      const loaded = new Set(state.loaded);
      loaded.delete(nodeId);
      const { [nodeId]: _error, ...errors } = state.errors;
      const { [nodeId]: _updated, ...updatedAt } = state.updatedAt;
      return { index: dropNode(state.index, nodeId), loaded, errors, updatedAt };
    });
  };

  /**
   * Connected nodes are followed, and so are reconnecting ones: their subscription stays
   * open through the outage and resumes with a reset; everything else is forgotten.
   */
  const sync = (): void => {
    const connected = new Set(
      nodes
        .getState()
        .nodes.filter(isFollowed)
        .map((node) => node.nodeId),
    );
    for (const nodeId of [...followed]) {
      if (!connected.has(nodeId)) unsubscribe(nodeId);
    }
    const { errors } = store.getState();
    for (const nodeId of connected) {
      // A stream that failed stays failed until the node reconnects (its `connectedAt` moves)
      // or the user retries.
      if (
        !subscriptions.has(nodeId) &&
        errors[nodeId] === undefined &&
        !pendingErrors.has(nodeId)
      ) {
        subscribe(nodeId);
      }
    }
  };

  let lastConnectedAt = new Map<string, number | undefined>();
  const unsubscribeNodes = nodes.subscribe((state) => {
    const next = new Map(state.nodes.map((node) => [node.nodeId, node.connectedAt]));
    for (const [nodeId, connectedAt] of next) {
      if (lastConnectedAt.has(nodeId) && lastConnectedAt.get(nodeId) !== connectedAt) {
        // Reconnected: give a failed stream another chance.
        store.setState((current) => {
          const { [nodeId]: _stale, ...errors } = current.errors;
          return { errors };
        });
      }
    }
    lastConnectedAt = next;
    sync();
  });
  sync();

  return {
    ...store,
    retry(nodeId) {
      store.setState((state) => {
        const { [nodeId]: _error, ...errors } = state.errors;
        return { errors };
      });
      sync();
    },
    dispose() {
      disposed = true;
      unsubscribeNodes();
      for (const subscription of subscriptions.values()) subscription.dispose();
      subscriptions.clear();
      followed.clear();
    },
  };
}
