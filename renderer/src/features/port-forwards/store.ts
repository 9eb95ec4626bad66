/**
 * The window's port forwards: the core's `forwards` event kept in a store, plus what the
 * view remembers across visits (filter, checked rows, the forward whose details are open).
 * Feature state on the AppModel (`forwardsOf(model)`), created on first use.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type { ForwardEntry } from '../../../../shared/model';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';

export const portForwardsViewId = 'port-forwards';

export type ForwardOperation =
  'starting' | 'stopping' | 'restarting' | 'removing' | 'saving' | 'moving';

export interface ForwardsState {
  readonly forwards: readonly ForwardEntry[];
  /** False until the first `forwards` event: "loading", not "no forwards". */
  readonly loaded: boolean;
  /** Why the list stopped updating. */
  readonly error?: AppErrorData;
  /** Operations in flight, by forward id: buttons show progress and refuse double clicks. */
  readonly pending: Readonly<Record<string, ForwardOperation>>;
  readonly filter: string;
  /** Rows ticked for an action on many at once. */
  readonly checked: ReadonlySet<string>;
  /** The row whose details show under the table. */
  readonly selectedKey?: string;
}

export interface ForwardsFeature extends Disposable {
  readonly store: StoreApi<ForwardsState>;
}

function createForwardsFeature(model: AppModel): ForwardsFeature {
  const store = createStore<ForwardsState>()(() => ({
    forwards: [],
    loaded: false,
    pending: {},
    filter: '',
    checked: new Set<string>(),
  }));
  const subscription = model.client.subscribe(
    'forwards',
    undefined,
    (forwards) =>
      store.setState((state) => {
        // Forget ticks and selection of forwards that are gone.
        const ids = new Set(forwards.map((forward) => forward.id));
        const checked = [...state.checked].filter((id) => ids.has(id));
        return {
          forwards,
          loaded: true,
          error: undefined,
          ...(checked.length !== state.checked.size && { checked: new Set(checked) }),
          ...(state.selectedKey !== undefined &&
            !ids.has(state.selectedKey) && { selectedKey: undefined }),
        };
      }),
    (error) => store.setState({ error: toAppErrorData(error), loaded: true }),
  );
  return { store, dispose: () => subscription.dispose() };
}

const forwardsState = new FeatureState('port-forwards', createForwardsFeature);

export function forwardsOf(model: AppModel): ForwardsFeature {
  return model.featureState(forwardsState);
}

/** Ticks or unticks one forward for an action on many. */
export function toggleChecked(feature: ForwardsFeature, key: string): void {
  feature.store.setState((state) => {
    const checked = new Set(state.checked);
    if (!checked.delete(key)) checked.add(key);
    return { checked };
  });
}

/** Runs an operation on one forward with its pending flag set, whatever the outcome. */
export async function withPending<T>(
  feature: ForwardsFeature,
  forwardId: string,
  operation: ForwardOperation,
  run: () => Promise<T>,
): Promise<T> {
  feature.store.setState((state) => ({ pending: { ...state.pending, [forwardId]: operation } }));
  try {
    return await run();
  } finally {
    feature.store.setState((state) => {
      const { [forwardId]: _done, ...rest } = state.pending;
      return { pending: rest };
    });
  }
}
