import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import type { ViewDefinition } from '../../app/registry';
import { PortForwardsView } from './PortForwardsView';
import { forwardsOf, portForwardsViewId } from './store';
import './port-forwards.css';

export const portForwardsView: ViewDefinition = {
  id: portForwardsViewId,
  title: 'Port forwards',
  section: 'Sessions',
  icon: 'forward',
  component: PortForwardsView,
  // Running forwards: what is listening on this machine right now.
  useCount: () =>
    useStore(forwardsOf(useModel()).store, (state) => {
      const running = state.forwards.filter((forward) => forward.live !== undefined).length;
      return running === 0 ? undefined : running;
    }),
};

export { forwardCommands } from './commands';
export { podForwardActions } from './pod-actions';
export { forwardsOf } from './store';
