/**
 * The terminals of a window: tabs of split layouts over panes, each pane a live terminal
 * (`TerminalPane`) or a recording's player (`CastPlayer`). Feature state on the AppModel
 * (`terminalsOf(model)`), so it outlives the Terminals view: leaving the view or switching
 * tabs never ends or redraws a terminal; closing its pane (or the window) does.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import { isMac } from '../../app/keyboard';
import { menuToggleId } from '../../app/ui-store';
import { rescueFocus } from '../../ui/focus';
import { openAccessibleView } from './AccessibleView';
import type { Cast } from './asciicast';
import type { TerminalTarget } from './core-link';
import { installTerminalDebug } from './debug';
import { FocusRequest } from './focus-request';
import {
  containsPane,
  neighbour,
  pane,
  paneIds,
  removePane,
  resizeSplit,
  splitPane,
  type FocusDirection,
  type LayoutNode,
  type SplitDirection,
} from './layout';
import { CastPlayer } from './player';
import { TerminalPane } from './pane';
import {
  defaultSettings,
  fontSizeLimits,
  loadSettings,
  normalizeSettings,
  saveSettings,
  type TerminalSettings,
} from './settings';
import type { TerminalShortcut } from './shortcuts';
import { readTerminalColors, watchTerminalColors, type TerminalColors } from './theme';
import { loadXterm, type XtermModules } from './xterm-modules';

export const terminalsViewId = 'terminals';

export type PaneContent =
  | { readonly kind: 'terminal'; readonly pane: TerminalPane }
  | { readonly kind: 'player'; readonly player: CastPlayer };

export interface TerminalTab {
  readonly id: string;
  readonly layout: LayoutNode;
  readonly activePaneId: string;
}

export interface TerminalsState {
  readonly tabs: readonly TerminalTab[];
  readonly activeTabId?: string;
  readonly panes: ReadonlyMap<string, PaneContent>;
  readonly settings: TerminalSettings;
  /** Panes whose find bar is open. */
  readonly finding: ReadonlySet<string>;
  /** xterm.js is loading for the first terminal. */
  readonly loading: boolean;
}

/** Where a new pane goes: a tab of its own, or beside an existing pane. */
export type Placement =
  | { readonly kind: 'tab' }
  | { readonly kind: 'split'; readonly direction: SplitDirection; readonly beside: string };

export function contentOf(content: PaneContent): CastPlayer | TerminalPane {
  return content.kind === 'terminal' ? content.pane : content.player;
}

export class TerminalsFeature implements Disposable {
  readonly store: StoreApi<TerminalsState>;
  private colors: TerminalColors | undefined;
  private readonly stopWatching: Disposable;
  private readonly uninstallDebug: () => void;
  private nextId = 1;
  private readonly focusRequest = new FocusRequest((paneId) => {
    const content = this.state.panes.get(paneId);
    return content !== undefined && contentOf(content).focus();
  });
  private disposed = false;

  constructor(private readonly model: AppModel) {
    this.store = createStore<TerminalsState>()(() => ({
      tabs: [],
      panes: new Map(),
      settings: typeof window === 'undefined' ? defaultSettings : loadSettings(),
      finding: new Set(),
      loading: false,
    }));
    this.stopWatching = watchTerminalColors((colors) => {
      this.colors = colors;
      for (const content of this.store.getState().panes.values())
        contentOf(content).applyColors(colors);
    });
    this.uninstallDebug = installTerminalDebug({
      terminals: () =>
        this.orderedPanes().flatMap(([paneId, content]) =>
          content.kind === 'terminal'
            ? [
                {
                  paneId,
                  title: content.pane.title,
                  nodeId: content.pane.sameTarget.nodeId,
                  containerId: content.pane.sameTarget.containerId,
                  term: content.pane.term,
                  bytesReceived: () => content.pane.bytesReceived,
                  twin: () => content.pane.twin(),
                },
              ]
            : [],
        ),
      client: this.model.client,
    });
  }

  get state(): TerminalsState {
    return this.store.getState();
  }

  activeTab(): TerminalTab | undefined {
    const { tabs, activeTabId } = this.state;
    return tabs.find((tab) => tab.id === activeTabId);
  }

  /** The pane keys go to: the active pane of the active tab. */
  activePane(): { paneId: string; content: PaneContent } | undefined {
    const tab = this.activeTab();
    const content = tab === undefined ? undefined : this.state.panes.get(tab.activePaneId);
    return tab === undefined || content === undefined
      ? undefined
      : { paneId: tab.activePaneId, content };
  }

  /** Opens a terminal (and shows it); resolves to its pane id, or undefined if it couldn't. */
  async openTerminal(
    target: TerminalTarget,
    placement: Placement = { kind: 'tab' },
  ): Promise<string | undefined> {
    this.model.ui.getState().navigate(terminalsViewId);
    const modules = await this.modules();
    if (modules === undefined || this.disposed) return undefined;
    const paneId = this.id('pane');
    const pane = new TerminalPane(paneId, target, {
      client: this.model.client,
      modules,
      settings: () => this.state.settings,
      colors: () => this.currentColors(),
      mac: isMac(),
      browser: this.model.client.mode === 'browser',
      onShortcut: (from, shortcut) => this.onShortcut(from.paneId, shortcut),
    });
    this.place(paneId, { kind: 'terminal', pane }, placement);
    return paneId;
  }

  async openPlayer(cast: Cast, title: string): Promise<string | undefined> {
    this.model.ui.getState().navigate(terminalsViewId);
    const modules = await this.modules();
    if (modules === undefined || this.disposed) return undefined;
    const paneId = this.id('pane');
    const player = new CastPlayer(paneId, cast, title, {
      modules,
      settings: () => this.state.settings,
      colors: () => this.currentColors(),
    });
    this.place(paneId, { kind: 'player', player }, { kind: 'tab' });
    player.play();
    return paneId;
  }

  /** A new terminal like `paneId`'s (same container, same command) beside it. */
  split(direction: SplitDirection, paneId = this.activePane()?.paneId): void {
    const content = paneId === undefined ? undefined : this.state.panes.get(paneId);
    if (paneId === undefined || content?.kind !== 'terminal') return;
    void this.openTerminal(content.pane.sameTarget, {
      kind: 'split',
      direction,
      beside: paneId,
    });
  }

  /** A new tab with a terminal like `paneId`'s. */
  duplicate(paneId = this.activePane()?.paneId): void {
    const content = paneId === undefined ? undefined : this.state.panes.get(paneId);
    if (content?.kind !== 'terminal') return;
    void this.openTerminal(content.pane.sameTarget);
  }

  /** Closes a pane and ends its terminal; the last pane of a tab closes the tab. */
  closePane(paneId: string): void {
    const { tabs, panes, finding } = this.state;
    const tab = tabs.find((candidate) => containsPane(candidate.layout, paneId));
    const content = panes.get(paneId);
    if (content !== undefined) contentOf(content).dispose();
    const nextPanes = new Map(panes);
    nextPanes.delete(paneId);
    const nextFinding = new Set(finding);
    nextFinding.delete(paneId);
    if (tab === undefined) {
      this.store.setState({ panes: nextPanes, finding: nextFinding });
      return;
    }
    const layout = removePane(tab.layout, paneId);
    if (layout === undefined) {
      this.store.setState({ panes: nextPanes, finding: nextFinding, ...this.withoutTab(tab.id) });
      return;
    }
    const activePaneId =
      tab.activePaneId === paneId
        ? (neighbour(tab.layout, paneId, 'left') ??
          neighbour(tab.layout, paneId, 'up') ??
          paneIds(layout)[0] ??
          '')
        : tab.activePaneId;
    this.store.setState({
      panes: nextPanes,
      finding: nextFinding,
      tabs: tabs.map((candidate) =>
        candidate.id === tab.id ? { ...tab, layout, activePaneId } : candidate,
      ),
    });
    this.focusSoon(activePaneId);
  }

  /**
   * Closes a tab and ends its terminals. Focus goes to the next tab's terminal, or with
   * `focus: 'tab'` (closed from the tab strip by keyboard) stays with the strip; with no tab
   * left, to the view's home.
   */
  closeTab(tabId: string, options: { readonly focus?: 'pane' | 'tab' } = {}): void {
    const tab = this.state.tabs.find((candidate) => candidate.id === tabId);
    if (tab === undefined) return;
    const panes = new Map(this.state.panes);
    const finding = new Set(this.state.finding);
    for (const paneId of paneIds(tab.layout)) {
      const content = panes.get(paneId);
      if (content !== undefined) contentOf(content).dispose();
      panes.delete(paneId);
      finding.delete(paneId);
    }
    this.store.setState({ panes, finding, ...this.withoutTab(tabId, options.focus ?? 'pane') });
    rescueFocus();
  }

  /** Selects a tab; its terminal gets the focus, unless `focus: 'tab'` (arrows on the strip). */
  activateTab(tabId: string, options: { readonly focus?: 'pane' | 'tab' } = {}): void {
    const tab = this.state.tabs.find((candidate) => candidate.id === tabId);
    if (tab === undefined) return;
    this.store.setState({ activeTabId: tabId });
    if (options.focus !== 'tab') this.focusSoon(tab.activePaneId);
  }

  cycleTab(step: 1 | -1): void {
    const { tabs, activeTabId } = this.state;
    if (tabs.length === 0) return;
    const index = tabs.findIndex((tab) => tab.id === activeTabId);
    const next = tabs[(index + step + tabs.length) % tabs.length];
    if (next !== undefined) this.activateTab(next.id);
  }

  /** Makes a pane the active one (of its tab, and its tab the active tab). */
  focusPane(paneId: string): void {
    const tab = this.state.tabs.find((candidate) => containsPane(candidate.layout, paneId));
    if (tab === undefined) return;
    if (tab.activePaneId !== paneId || this.state.activeTabId !== tab.id) {
      this.store.setState({
        activeTabId: tab.id,
        tabs: this.state.tabs.map((candidate) =>
          candidate.id === tab.id ? { ...candidate, activePaneId: paneId } : candidate,
        ),
      });
    }
    this.focusSoon(paneId);
  }

  moveFocus(direction: FocusDirection): void {
    const tab = this.activeTab();
    if (tab === undefined) return;
    const target = neighbour(tab.layout, tab.activePaneId, direction);
    if (target !== undefined) this.focusPane(target);
  }

  resizeSplit(tabId: string, splitId: string, sizes: readonly number[]): void {
    this.store.setState({
      tabs: this.state.tabs.map((tab) =>
        tab.id === tabId ? { ...tab, layout: resizeSplit(tab.layout, splitId, sizes) } : tab,
      ),
    });
  }

  setFinding(paneId: string, open: boolean): void {
    const finding = new Set(this.state.finding);
    if (open) finding.add(paneId);
    else finding.delete(paneId);
    this.store.setState({ finding });
    if (!open) this.focusSoon(paneId);
  }

  updateSettings(change: Partial<TerminalSettings>): void {
    const settings = normalizeSettings({ ...this.state.settings, ...change });
    saveSettings(settings);
    this.store.setState({ settings });
    for (const content of this.state.panes.values()) contentOf(content).applySettings(settings);
  }

  /** Font zoom for every terminal: one step bigger or smaller, or back to the default. */
  zoom(step: 1 | -1 | 0): void {
    const current = this.state.settings.fontSize;
    const fontSize =
      step === 0
        ? defaultSettings.fontSize
        : Math.min(fontSizeLimits.max, Math.max(fontSizeLimits.min, current + step));
    if (fontSize !== current) this.updateSettings({ fontSize });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.uninstallDebug();
    this.stopWatching.dispose();
    for (const content of this.state.panes.values()) contentOf(content).dispose();
    this.store.setState({ tabs: [], panes: new Map(), activeTabId: undefined, finding: new Set() });
  }

  onShortcut(paneId: string, shortcut: TerminalShortcut): void {
    const content = this.state.panes.get(paneId);
    switch (shortcut.action) {
      case 'copy':
        if (content?.kind === 'terminal') void content.pane.copySelection();
        return;
      case 'paste':
        if (content?.kind === 'terminal') void content.pane.pasteFromClipboard();
        return;
      case 'find':
        this.setFinding(paneId, true);
        return;
      case 'zoom':
        this.zoom(shortcut.step);
        return;
      case 'split':
        this.split(shortcut.direction, paneId);
        return;
      case 'close-pane':
        this.closePane(paneId);
        return;
      case 'focus':
        this.moveFocus(shortcut.direction);
        return;
      case 'tab':
        this.cycleTab(shortcut.step);
        return;
      case 'palette':
        this.model.ui.getState().setPaletteOpen(true);
        return;
      case 'leave':
        this.leave(shortcut.step);
        return;
      case 'tab-focus':
        this.toggleTabMovesFocus();
        return;
      case 'accessible-view':
        if (content?.kind === 'terminal') openAccessibleView(this.model, content.pane);
        return;
      case 'open-palette':
      case 'app':
        return;
    }
  }

  /**
   * F6: out of the terminal to its tab in the strip (from where Tab goes on through the
   * page); Shift+F6: back to the sidebar, on the current view (or to the Menu that opens it).
   */
  leave(step: 1 | -1): void {
    const tab = step === 1 ? this.state.activeTabId : undefined;
    const current = document.querySelector<HTMLElement>('nav [aria-current="page"]');
    // A narrow window keeps the sidebar behind the top bar's Menu button: the way to it.
    const shown = current !== null && current.getClientRects().length > 0;
    if (tab !== undefined) document.getElementById(tabElementId(tab))?.focus();
    else (shown ? current : document.getElementById(menuToggleId))?.focus();
  }

  /** Ctrl+M: Tab and Shift+Tab move focus (on) or go to the program (off); said in a toast. */
  toggleTabMovesFocus(): void {
    const on = !this.state.settings.tabMovesFocus;
    this.updateSettings({ tabMovesFocus: on });
    this.model.toasts.getState().show({
      tone: 'info',
      title: on ? 'Tab moves focus' : 'Tab goes to the terminal',
      body: on
        ? 'Tab and Shift+Tab now leave the terminal. Ctrl+M gives them back to the program.'
        : 'Tab and Shift+Tab now go to the program. Ctrl+M or F6 to leave the terminal.',
      topic: 'terminal-tab-focus',
    });
  }

  /** Terminal panes in tab order, then reading order within each tab. */
  orderedPanes(): [string, PaneContent][] {
    const { tabs, panes } = this.state;
    return tabs.flatMap((tab) =>
      paneIds(tab.layout).flatMap((paneId): [string, PaneContent][] => {
        const content = panes.get(paneId);
        return content === undefined ? [] : [[paneId, content]];
      }),
    );
  }

  private async modules(): Promise<XtermModules | undefined> {
    this.store.setState({ loading: true });
    try {
      return await loadXterm();
    } catch (error) {
      this.model.toasts.getState().show({
        tone: 'error',
        title: 'Could not load the terminal',
        error: { ...toAppErrorData(error), hint: 'Reload the window and try again.' },
      });
      return undefined;
    } finally {
      this.store.setState({ loading: false });
    }
  }

  private currentColors(): TerminalColors {
    this.colors ??= readTerminalColors();
    return this.colors;
  }

  private place(paneId: string, content: PaneContent, placement: Placement): void {
    const { tabs, panes } = this.state;
    const nextPanes = new Map(panes).set(paneId, content);
    const host =
      placement.kind === 'split'
        ? tabs.find((tab) => containsPane(tab.layout, placement.beside))
        : undefined;
    if (placement.kind === 'split' && host !== undefined) {
      const layout = splitPane(host.layout, placement.beside, paneId, placement.direction, () =>
        this.id('split'),
      );
      this.store.setState({
        panes: nextPanes,
        activeTabId: host.id,
        tabs: tabs.map((tab) =>
          tab.id === host.id ? { ...tab, layout, activePaneId: paneId } : tab,
        ),
      });
    } else {
      const tab: TerminalTab = { id: this.id('tab'), layout: pane(paneId), activePaneId: paneId };
      this.store.setState({ panes: nextPanes, activeTabId: tab.id, tabs: [...tabs, tab] });
    }
    this.focusSoon(paneId);
  }

  private withoutTab(
    tabId: string,
    focus: 'pane' | 'tab' = 'pane',
  ): Pick<TerminalsState, 'tabs' | 'activeTabId'> {
    const { tabs, activeTabId } = this.state;
    const index = tabs.findIndex((tab) => tab.id === tabId);
    const rest = tabs.filter((tab) => tab.id !== tabId);
    if (activeTabId !== tabId) return { tabs: rest, activeTabId };
    const next = rest[Math.min(index, rest.length - 1)];
    if (next !== undefined && focus === 'pane') this.focusSoon(next.activePaneId);
    return { tabs: rest, activeTabId: next?.id };
  }

  /** Focuses a pane now if it is on screen, else as soon as it is (focus-request.ts). */
  private focusSoon(paneId: string): void {
    this.focusRequest.request(paneId);
  }

  /** A pane's terminal went on screen: it takes the focus if a request waits for it. */
  paneAttached(paneId: string): void {
    this.focusRequest.attached(paneId);
  }

  private id(kind: string): string {
    const id = `${kind}-${this.nextId}`;
    this.nextId += 1;
    return id;
  }
}

/** The DOM id of a tab's `tab` element in the strip: where F6 takes the focus. */
export function tabElementId(tabId: string): string {
  return `terminal-tab-${tabId}`;
}

const terminalsState = new FeatureState('terminals', (owner) => new TerminalsFeature(owner));

/** The window's terminals, created on first use. */
export function terminalsOf(model: AppModel): TerminalsFeature {
  return model.featureState(terminalsState);
}
