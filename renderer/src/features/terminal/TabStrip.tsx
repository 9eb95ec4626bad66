import type { KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { Icon } from '../../ui/icons';
import { paneIds } from './layout';
import { replayFromFile } from './pane-actions';
import { dotLabel, dotState, type DotState } from './phase';
import type { TerminalPane } from './pane';
import { openSettingsDialog } from './SettingsDialog';
import { tabElementId, type PaneContent, type TerminalTab, type TerminalsFeature } from './store';
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

/**
 * One tab: the `tab` itself and, beside it for the mouse, its close button. That button is
 * no part of the tablist (a tablist holds tabs only): it is hidden from assistive technology
 * and out of the Tab order; the keyboard closes a tab with Delete on it, or with the strip's
 * "Close tab" button, which acts on the selected tab.
 */
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
        id={tabElementId(tab.id)}
        className="term-tab-label"
        aria-selected={active}
        tabIndex={active ? 0 : -1}
        // The view's home (ui/focus.ts): focus that is lost lands here, never in the shell.
        data-focus-home={active ? '' : undefined}
        aria-keyshortcuts="Delete"
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
        aria-hidden="true"
        tabIndex={-1}
        title={count > 1 ? `Close the tab and its ${count} panes` : 'Close the tab'}
        onClick={() => feature.closeTab(tab.id)}
      >
        <Icon name="close" size={12} />
      </button>
    </div>
  );
}

/**
 * The tablist's keys, as the ARIA tabs pattern has them: arrows and Home/End move between
 * tabs (and select them, focus staying on the tab), Delete closes the focused one.
 */
function onTabKeyDown(
  event: KeyboardEvent<HTMLDivElement>,
  tabs: readonly TerminalTab[],
  activeTabId: string | undefined,
  feature: TerminalsFeature,
): void {
  const index = tabs.findIndex((tab) => tab.id === activeTabId);
  if (index < 0 || event.ctrlKey || event.altKey || event.metaKey) return;
  let next: number;
  if (event.key === 'ArrowRight') next = (index + 1) % tabs.length;
  else if (event.key === 'ArrowLeft') next = (index - 1 + tabs.length) % tabs.length;
  else if (event.key === 'Home') next = 0;
  else if (event.key === 'End') next = tabs.length - 1;
  else if (event.key === 'Delete') {
    event.preventDefault();
    const after = tabs[index + 1] ?? tabs[index - 1];
    feature.closeTab(tabs[index]?.id ?? '', { focus: 'tab' });
    if (after !== undefined) focusTabSoon(after.id);
    return;
  } else return;
  event.preventDefault();
  const target = tabs[next];
  if (target === undefined) return;
  feature.activateTab(target.id, { focus: 'tab' });
  focusTabSoon(target.id);
}

function focusTabSoon(tabId: string): void {
  requestAnimationFrame(() => document.getElementById(tabElementId(tabId))?.focus());
}

export function TabStrip() {
  const model = useModel();
  const tabs = useTerminals((state) => state.tabs);
  const activeTabId = useTerminals((state) => state.activeTabId);
  const feature = useTerminalsFeature();
  return (
    <div className="term-tabs">
      <div
        role="tablist"
        aria-label="Terminal tabs"
        style={{ display: 'flex', gap: 2, minWidth: 0 }}
        onKeyDown={(event) => onTabKeyDown(event, tabs, activeTabId, feature)}
      >
        {tabs.map((tab) => (
          <Tab key={tab.id} tab={tab} active={tab.id === activeTabId} />
        ))}
      </div>
      <div className="term-tabs-actions">
        {activeTabId !== undefined && (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            title="Close the selected tab (Delete on a tab)"
            onClick={() => feature.closeTab(activeTabId)}
          >
            <Icon name="close" size={14} />
            Close tab
          </button>
        )}
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
