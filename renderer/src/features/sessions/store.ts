/**
 * The session monitor's data: the core's `sessions` event (live sessions and the bounded
 * history, sent whole on every change and once a second while any is live), plus the
 * monitor's filter and selection, kept across visits. Feature state on the AppModel.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type { SessionSnapshot } from '../../../../shared/model';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import { emptySessionFilter, type SessionFilter } from './rows';

export const sessionsViewId = 'sessions';

export interface SessionsState {
  readonly sessions: readonly SessionSnapshot[];
  readonly loaded: boolean;
  readonly error?: AppErrorData;
  readonly filter: SessionFilter;
  /** The session whose details show under the table. */
  readonly selectedKey?: string;
}

export interface SessionsFeature extends Disposable {
  readonly store: StoreApi<SessionsState>;
  setFilter(change: Partial<SessionFilter>): void;
}

function createSessionsFeature(model: AppModel): SessionsFeature {
  const store = createStore<SessionsState>()(() => ({
    sessions: [],
    loaded: false,
    filter: emptySessionFilter,
  }));
  const subscription = model.client.subscribe(
    'sessions',
    undefined,
    (sessions) => store.setState({ sessions, loaded: true, error: undefined }),
    (error) => store.setState({ error: toAppErrorData(error), loaded: true }),
  );
  return {
    store,
    setFilter: (change) => store.setState((state) => ({ filter: { ...state.filter, ...change } })),
    dispose: () => subscription.dispose(),
  };
}

const sessionsState = new FeatureState('sessions', createSessionsFeature);

export function sessionsOf(model: AppModel): SessionsFeature {
  return model.featureState(sessionsState);
}
