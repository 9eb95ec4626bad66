import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../../shared/errors';
import { toAppErrorData } from '../../../../shared/errors';
import { applyNodesDelta, type NodeStatus } from '../../../../shared/model';
import type { Disposable, PortholeClient } from '../../platform';
import { sameData } from '../resources/delta';

/** What the top bar's node selector picks: every connected node, or one. */
export type NodeScope =
  { readonly kind: 'all' } | { readonly kind: 'node'; readonly nodeId: string };

export type NodeOperation = 'connecting' | 'disconnecting' | 'removing' | 'saving';

export interface NodesState {
  readonly nodes: readonly NodeStatus[];
  /** False until the first `nodes` event: "loading", not "no nodes". */
  readonly loaded: boolean;
  /** Why the node list could not be read or stopped updating. */
  readonly error?: AppErrorData;
  readonly scope: NodeScope;
  /** Operations in flight, so buttons can show progress and refuse double clicks. */
  readonly pending: Readonly<Record<string, NodeOperation>>;
  readonly setScope: (scope: NodeScope) => void;
  /**
   * Folds in a status an action returned (connect): the UI shows the outcome at once
   * even if the `nodes` event that reports it comes later. The next event wins.
   */
  readonly mergeStatus: (status: NodeStatus) => void;
}

export type NodesStore = StoreApi<NodesState> & Disposable;

export function createNodesStore(client: PortholeClient): NodesStore {
  const store = createStore<NodesState>()((set) => ({
    nodes: [],
    loaded: false,
    scope: { kind: 'all' },
    pending: {},
    setScope: (scope) => set({ scope }),
    mergeStatus: (status) =>
      set((state) => ({
        nodes: state.nodes.map((node) => (node.nodeId === status.nodeId ? status : node)),
      })),
  }));
  const subscription = client.subscribe(
    'nodes',
    undefined,
    // A reset, then the nodes that changed: folded into the list in place. A reset (a
    // resubscription) keeps the statuses that didn't change, so their cards don't render.
    (delta) =>
      store.setState((state) => ({
        nodes: delta.reset
          ? keepUnchanged(state.nodes, delta.upserted)
          : applyNodesDelta(state.nodes, delta),
        loaded: true,
        error: undefined,
      })),
    (error) => store.setState({ error: toAppErrorData(error), loaded: true }),
  );
  return { ...store, dispose: () => subscription.dispose() };
}

/**
 * `next`, with each status that equals the one before it replaced by that one (and the
 * whole list when nothing changed): what renders per node (its card, its picker option)
 * is memoised on the status object, so a whole new list (a reset) renders only the cards
 * that changed. Deltas keep the other nodes' objects by themselves.
 */
export function keepUnchanged(
  previous: readonly NodeStatus[],
  next: readonly NodeStatus[],
): readonly NodeStatus[] {
  if (previous.length === 0) return next;
  const before = new Map(previous.map((node) => [node.nodeId, node]));
  let same = previous.length === next.length;
  const kept = next.map((node, index) => {
    const old = before.get(node.nodeId);
    if (old !== undefined && sameData(old, node)) {
      if (previous[index] !== old) same = false;
      return old;
    }
    same = false;
    return node;
  });
  return same ? previous : kept;
}

/**
 * Connected, or reconnecting by itself (its runtime stopped answering): the nodes whose
 * lists and stats the UI keeps following. A reconnecting node's rows are hidden, with a
 * count, until it is back (see NodeDownBanner).
 */
export function isFollowed(node: NodeStatus): boolean {
  return node.state === 'connected' || node.state === 'reconnecting';
}

/** An option's label in a node picker: "lab-2", or "lab-2 (reconnecting)" when not connected. */
export function nodeOptionLabel(node: NodeStatus): string {
  return node.state === 'connected' ? node.name : `${node.name} (${node.state})`;
}

/** The nodes in scope that are reconnecting, in list order. */
export function downNodesInScope(nodes: readonly NodeStatus[], scope: NodeScope): NodeStatus[] {
  return nodes.filter(
    (node) =>
      node.state === 'reconnecting' && (scope.kind === 'all' || scope.nodeId === node.nodeId),
  );
}

/** Runs a node operation with its pending flag set, whatever the outcome. */
export async function withPending<T>(
  store: NodesStore,
  nodeId: string,
  operation: NodeOperation,
  run: () => Promise<T>,
): Promise<T> {
  store.setState((state) => ({ pending: { ...state.pending, [nodeId]: operation } }));
  try {
    return await run();
  } finally {
    store.setState((state) => {
      const { [nodeId]: _done, ...rest } = state.pending;
      return { pending: rest };
    });
  }
}
