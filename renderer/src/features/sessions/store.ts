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
  /** Asks the core for the sessions as they are now (the monitor is opening). */
  refresh(): void;
}

function createSessionsFeature(model: AppModel): SessionsFeature {
  const store = createStore<SessionsState>()(() => ({
    sessions: [],
    loaded: false,
    filter: emptySessionFilter,
  }));
  // The core sends the whole list when subscribed, then on every change, but traffic only
  // with its once-a-second tick. This subscription lives as long as the window (the
  // sidebar's count needs it), so the list it last heard can be a second behind a busy
  // session: a forward that just moved megabytes would open in the monitor at 0 B.
  // Subscribing again gets the list as it is now.
  const listen = (): Disposable =>
    model.client.subscribe(
      'sessions',
      undefined,
      (sessions) => store.setState({ sessions, loaded: true, error: undefined }),
      (error) => store.setState({ error: toAppErrorData(error), loaded: true }),
    );
  let subscription = listen();
  return {
    store,
    setFilter: (change) => store.setState((state) => ({ filter: { ...state.filter, ...change } })),
    refresh: () => {
      // The old one first: none of its lists may arrive after the fresh one.
      subscription.dispose();
      subscription = listen();
    },
    dispose: () => subscription.dispose(),
  };
}

const sessionsState = new FeatureState('sessions', createSessionsFeature);

export function sessionsOf(model: AppModel): SessionsFeature {
  return model.featureState(sessionsState);
}
