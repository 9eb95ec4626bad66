import type { Command, CommandProvider } from '../../app/registry';
import { clearHistory } from './actions';
import { isLive } from './rows';
import { sessionsOf, sessionsViewId } from './store';

/** The monitor's filters as commands, and clearing its history. */
export const sessionCommands: CommandProvider = (model) => {
  const feature = sessionsOf(model);
  const { sessions } = feature.store.getState();
  const show = (
    id: string,
    title: string,
    change: Parameters<typeof feature.setFilter>[0],
  ): Command => ({
    id,
    title,
    group: 'Sessions',
    run: () => {
      feature.setFilter(change);
      model.ui.getState().navigate(sessionsViewId);
    },
  });
  const commands: Command[] = [
    show('sessions.live', 'Show live sessions', { liveness: 'live', kind: '', text: '' }),
    show('sessions.forwards', 'Show port-forward sessions', {
      kind: 'port-forward',
      liveness: 'all',
    }),
  ];
  if (sessions.some((session) => !isLive(session))) {
    commands.push({
      id: 'sessions.clear',
      title: 'Clear the session history',
      group: 'Sessions',
      run: () => void clearHistory(model),
    });
  }
  return commands;
};
