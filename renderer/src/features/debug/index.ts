import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import type { ViewDefinition } from '../../app/registry';
import { DebugView } from './DebugView';
import { debugOf, debugViewId } from './store';
import './debug.css';

export const debugView: ViewDefinition = {
  id: debugViewId,
  title: 'Debug containers',
  section: 'Sessions',
  icon: 'search',
  component: DebugView,
  // The ones that wait on the user: kept and left over.
  useCount: () =>
    useStore(debugOf(useModel()).store, (state) => {
      const waiting = state.rows.filter((row) => row.status !== 'active').length;
      return waiting === 0 ? undefined : waiting;
    }),
};

export { containerDebugAction, debugContainer } from './actions';
export { openDebugDialog, type DebugTarget } from './DebugDialog';
export { debugOf } from './store';
