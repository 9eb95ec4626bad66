import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import type { ViewDefinition } from '../../app/registry';
import { isLive } from './rows';
import { SessionsView } from './SessionsView';
import { sessionsOf, sessionsViewId } from './store';
import './sessions.css';

export const sessionsView: ViewDefinition = {
  id: sessionsViewId,
  title: 'Sessions',
  section: 'Sessions',
  icon: 'sessions',
  component: SessionsView,
  // Live sessions on every node.
  useCount: () =>
    useStore(sessionsOf(useModel()).store, (state) => {
      const live = state.sessions.filter(isLive).length;
      return live === 0 ? undefined : live;
    }),
};

export { sessionCommands } from './commands';
export { sessionsOf } from './store';
