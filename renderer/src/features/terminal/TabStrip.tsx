import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { Icon } from '../../ui/icons';
import { paneIds } from './layout';
import { replayFromFile } from './pane-actions';
import { dotLabel, dotState, type DotState } from './phase';
import type { TerminalPane } from './pane';
import { openSettingsDialog } from './SettingsDialog';
import type { PaneContent, TerminalTab } from './store';
import { useTerminals, useTerminalsFeature } from './use-terminals';

function usePaneTitle(pane: TerminalPane): { title: string; state: DotState } {
  const title = useStore(pane.status, () => pane.title);
  const state = useStore(pane.status, (status) => dotState(status.phase));
  return { title, state };
}

function TerminalTabLabel({ pane, panes }: { pane: TerminalPane; panes: number }) {
  const { title, state } = usePaneTitle(pane);
  return (
    <>
      <span className="term-dot" data-state={state} aria-label={dotLabel(state)} role="img" />
      <span className="term-tab-title">{title}</span>
      {panes > 1 && <span className="faint">({panes})</span>}
    </>
  );
}

function TabLabel({ content, panes }: { content: PaneContent; panes: number }) {
  if (content.kind === 'terminal') return <TerminalTabLabel pane={content.pane} panes={panes} />;
  return (
    <>
      <Icon name="play" size={12} />
      <span className="term-tab-title">Replay · {content.player.title}</span>
    </>
  );
}

function Tab({ tab, active }: { tab: TerminalTab; active: boolean }) {
  const feature = useTerminalsFeature();
  const content = useTerminals((state) => state.panes.get(tab.activePaneId));
  if (content === undefined) return null;
  const count = paneIds(tab.layout).length;
  return (
    <div className="term-tab" data-active={active}>
      <button
        type="button"
        role="tab"
        className="term-tab-label"
        aria-selected={active}
        onClick={() => feature.activateTab(tab.id)}
        onAuxClick={(event) => {
          if (event.button === 1) feature.closeTab(tab.id); // middle click closes, as in browsers
        }}
      >
        <TabLabel content={content} panes={count} />
      </button>
      <button
        type="button"
        className="term-tab-close"
        aria-label="Close tab"
        title={count > 1 ? `Close the tab and its ${count} panes` : 'Close the tab'}
        onClick={() => feature.closeTab(tab.id)}
      >
        <Icon name="close" size={12} />
      </button>
    </div>
  );
}

export function TabStrip() {
  const model = useModel();
  const tabs = useTerminals((state) => state.tabs);
  const activeTabId = useTerminals((state) => state.activeTabId);
  return (
    <div className="term-tabs">
      <div
        role="tablist"
        aria-label="Terminal tabs"
        style={{ display: 'flex', gap: 2, minWidth: 0 }}
      >
        {tabs.map((tab) => (
          <Tab key={tab.id} tab={tab} active={tab.id === activeTabId} />
        ))}
      </div>
      <div className="term-tabs-actions">
        <button
          type="button"
          className="btn btn-small btn-ghost"
          onClick={() => void replayFromFile(model)}
        >
          <Icon name="play" size={14} />
          Replay a recording…
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label="Terminal settings"
          title="Terminal settings"
          onClick={() => openSettingsDialog(model)}
        >
          <Icon name="edit" size={14} />
          Settings
        </button>
      </div>
    </div>
  );
}
