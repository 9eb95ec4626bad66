import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import { toDisposable } from '../../../../shared/lifecycle';
import type { StatsSample, StatsUpdate } from '../../../../shared/model';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import type { Disposable } from '../../platform';
import {
  appendSamples,
  emptySparkIndex,
  sparkIndex,
  type SparkIndex,
  type StatsKind,
} from './series';

/** Samples a table sparkline shows (a minute at the default 2 s interval). */
export const sparkLength = 30;

/** How long a node stays subscribed after its last user left (a quick view switch). */
export const lingerMs = 15_000;

/** A node's stats as the UI holds them. */
export interface NodeStats {
  /** False until the subscription's first payload (the history) arrived. */
  readonly loaded: boolean;
  readonly samples: readonly StatsSample[];
  readonly intervalMs: number;
  readonly historyMs: number;
  readonly spark: SparkIndex;
  /** The last poll failed; polling goes on. */
  readonly pollError?: AppErrorData;
  /** The subscription ended (the node disconnected, the core refused it). */
  readonly ended?: AppErrorData;
}

/** What the Stats view shows; kept here so it survives switching views. */
export interface StatsViewState {
  /** Undefined: the node in scope, else the first connected one. */
  readonly nodeId?: string;
  readonly kind: StatsKind;
  /** Charted ids for `nodeId` and `kind`; undefined: the busiest few. */
  readonly selected: { readonly [K in StatsKind]?: readonly string[] };
  /** The row a "Stats" action opened the view on. */
  readonly focusId?: string;
}

export interface StatsState {
  readonly byNode: Readonly<Record<string, NodeStats>>;
  readonly view: StatsViewState;
}

export interface StatsStore extends StoreApi<StatsState>, Disposable {
  /**
   * Keeps `nodeId`'s stats subscribed while the returned handle lives (ref-counted; the
   * subscription lingers a little after the last handle, so switching views doesn't
   * restart it).
   */
  retain(nodeId: string): Disposable;
  /** Opens the view on one container or pod: its node, its kind, charted alone. */
  focus(nodeId: string, kind: StatsKind, id: string): void;
  setView(change: Partial<StatsViewState>): void;
  /** Subscribes again to a node whose stream ended (the banner's Retry). */
  retry(nodeId: string): void;
}

const initialNodeStats: NodeStats = {
  loaded: false,
  samples: [],
  intervalMs: 2000,
  historyMs: 5 * 60_000,
  spark: emptySparkIndex,
};

interface Retained {
  count: number;
  subscription: Disposable | undefined;
  lingerTimer: ReturnType<typeof setTimeout> | undefined;
  /** connectedAt of the node when its stream ended: a reconnect moves it. */
  endedAt: number | undefined;
  generation: number;
}

/**
 * The stats of the nodes something on screen shows (a Stats view, the sparkline cells of
 * a pods or containers table), one `stats` subscription per node while anything retains
 * it. A stream that ended is renewed when its node reconnects.
 */
export function createStatsStore(model: AppModel): StatsStore {
  const { client, nodes } = model;
  const store = createStore<StatsState>()(() => ({
    byNode: {},
    view: { kind: 'containers', selected: {} },
  }));
  const retained = new Map<string, Retained>();

  const setNode = (nodeId: string, change: (current: NodeStats) => NodeStats): void => {
    store.setState((state) => ({
      byNode: { ...state.byNode, [nodeId]: change(state.byNode[nodeId] ?? initialNodeStats) },
    }));
  };

  const apply = (nodeId: string, update: StatsUpdate): void => {
    setNode(nodeId, (current) => {
      const maxCount = Math.ceil(update.historyMs / Math.max(1, update.intervalMs)) + 10;
      const samples = update.reset
        ? appendSamples([], update.samples, update.historyMs, maxCount)
        : appendSamples(current.samples, update.samples, update.historyMs, maxCount);
      return {
        loaded: true,
        samples,
        intervalMs: update.intervalMs,
        historyMs: update.historyMs,
        spark: samples === current.samples ? current.spark : sparkIndex(samples, sparkLength),
        ...(update.error !== undefined && { pollError: update.error }),
      };
    });
  };

  const connectedAt = (nodeId: string): number | undefined =>
    nodes.getState().nodes.find((node) => node.nodeId === nodeId)?.connectedAt;

  const subscribe = (nodeId: string, entry: Retained): void => {
    entry.endedAt = undefined;
    setNode(nodeId, ({ ended: _ended, ...current }) => current);
    // Payloads of a stream we already replaced must not land.
    const generation = (entry.generation += 1);
    const subscription = client.subscribe(
      'stats',
      { nodeId },
      (update) => {
        if (entry.generation === generation) apply(nodeId, update);
      },
      (error) => {
        if (entry.generation !== generation) return;
        entry.subscription = undefined;
        entry.endedAt = connectedAt(nodeId) ?? -1;
        setNode(nodeId, (current) => ({ ...current, ended: toAppErrorData(error) }));
      },
    );
    // Unless it was refused on the spot (then it has ended already).
    if (entry.endedAt === undefined) entry.subscription = subscription;
  };

  const release = (nodeId: string, entry: Retained): void => {
    entry.generation += 1;
    entry.subscription?.dispose();
    retained.delete(nodeId);
    store.setState((state) => {
      const { [nodeId]: _dropped, ...byNode } = state.byNode;
      return { byNode };
    });
  };

  // A node that reconnected gets its ended stream back.
  const unsubscribeNodes = nodes.subscribe((state) => {
    for (const [nodeId, entry] of retained) {
      if (entry.subscription !== undefined || entry.count === 0) continue;
      const node = state.nodes.find((candidate) => candidate.nodeId === nodeId);
      if (node?.state === 'connected' && node.connectedAt !== entry.endedAt)
        subscribe(nodeId, entry);
    }
  });

  return {
    ...store,
    retain(nodeId) {
      let entry = retained.get(nodeId);
      if (entry === undefined) {
        entry = {
          count: 0,
          subscription: undefined,
          lingerTimer: undefined,
          endedAt: undefined,
          generation: 0,
        };
        retained.set(nodeId, entry);
        subscribe(nodeId, entry);
      }
      const current = entry;
      current.count += 1;
      if (current.lingerTimer !== undefined) clearTimeout(current.lingerTimer);
      current.lingerTimer = undefined;
      return toDisposable(() => {
        current.count -= 1;
        if (current.count > 0 || retained.get(nodeId) !== current) return;
        current.lingerTimer = setTimeout(() => {
          current.lingerTimer = undefined;
          if (current.count === 0 && retained.get(nodeId) === current) release(nodeId, current);
        }, lingerMs);
      });
    },
    focus(nodeId, kind, id) {
      store.setState((state) => ({
        view: { ...state.view, nodeId, kind, selected: { [kind]: [id] }, focusId: id },
      }));
    },
    setView(change) {
      store.setState((state) => ({ view: { ...state.view, ...change } }));
    },
    retry(nodeId) {
      const entry = retained.get(nodeId);
      if (entry !== undefined && entry.subscription === undefined) subscribe(nodeId, entry);
    },
    dispose() {
      unsubscribeNodes();
      for (const entry of retained.values()) {
        if (entry.lingerTimer !== undefined) clearTimeout(entry.lingerTimer);
        entry.subscription?.dispose();
      }
      retained.clear();
    },
  };
}

const statsState = new FeatureState('stats', createStatsStore);

/** The app's one stats store (created on first use, disposed with the model). */
export function statsStoreOf(model: AppModel): StatsStore {
  return model.featureState(statsState);
}
