import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import type { ViewDefinition } from '../../app/registry';
import { terminalsOf, terminalsViewId } from './store';
import { TerminalsView } from './TerminalsView';
import './terminal.css';
import './panes.css';
import './overlays.css';

export const terminalsView: ViewDefinition = {
  id: terminalsViewId,
  title: 'Terminals',
  section: 'Sessions',
  icon: 'terminal',
  component: TerminalsView,
  // Open terminal panes (replays don't count): what is running behind this view.
  useCount: () =>
    useStore(terminalsOf(useModel()).store, (state) => {
      let count = 0;
      for (const content of state.panes.values()) if (content.kind === 'terminal') count += 1;
      return count === 0 ? undefined : count;
    }),
};

export { terminalCommands } from './commands';
export { containerTerminalActions } from './actions';
export { terminalsOf } from './store';
