import { useModel } from '../../app/context';
import { modKeyLabel } from '../../app/keyboard';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState } from '../../ui/EmptyState';
import { LayoutView } from './LayoutView';
import { TabStrip } from './TabStrip';
import { useTerminals } from './use-terminals';

function NoTerminals() {
  const model = useModel();
  const loading = useTerminals((state) => state.loading);
  if (loading) return <LoadingState>Loading the terminal…</LoadingState>;
  const toContainers = (): void => model.ui.getState().navigate('containers');
  return (
    <EmptyState
      icon="terminal"
      title="No terminals open"
      actions={<Button onClick={toContainers}>Go to Containers</Button>}
    >
      Open a shell, attach, or run a command from a running container's details, or from the command
      palette (<kbd>{modKeyLabel('K')}</kbd>). Terminals keep running while you look at other views.
    </EmptyState>
  );
}

/** Tabs of terminals (and replays), each tab a layout of split panes. */
export function TerminalsView() {
  const tab = useTerminals((state) =>
    state.tabs.find((candidate) => candidate.id === state.activeTabId),
  );
  return (
    <div className="view terminals-view">
      <TabStrip />
      <div className="term-stage" role="tabpanel" aria-label="Terminals">
        {tab === undefined ? (
          <div className="term-empty">
            <NoTerminals />
          </div>
        ) : (
          <LayoutView key={tab.id} tab={tab} node={tab.layout} />
        )}
      </div>
    </div>
  );
}
