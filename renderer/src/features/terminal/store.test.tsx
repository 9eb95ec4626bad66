// @vitest-environment happy-dom
import { act } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { App } from '../../app/App';
import { createAppModel, type AppModel } from '../../app/model';
import { mountView } from '../../app/testing';
import { paneIds } from './layout';
import type { TerminalPane } from './pane';
import { terminalsOf, type TerminalsFeature } from './store';
import { fakeTerminalCore, installInertCanvas, type FakeTerminalCore } from './testing';

let restoreCanvas: (() => void) | undefined;
beforeAll(() => {
  restoreCanvas = installInertCanvas();
});
afterAll(() => restoreCanvas?.());

interface Rendered {
  readonly core: FakeTerminalCore;
  readonly model: AppModel;
  readonly feature: TerminalsFeature;
  readonly root: HTMLElement;
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

async function renderApp(): Promise<Rendered> {
  const core = fakeTerminalCore();
  const model = createAppModel(core.client, { initialView: 'nodes' });
  const { element, unmount } = await mountView(model, <App />, {
    width: '1200px',
    height: '800px',
  });
  cleanup = unmount;
  return { core, model, feature: terminalsOf(model), root: element };
}

async function settle(check: () => void): Promise<void> {
  await vi.waitFor(async () => {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    check();
  });
}

const target = { nodeId: 'n1', containerId: 'c1', containerName: 'web', kind: 'exec' } as const;

function paneOf(feature: TerminalsFeature, paneId: string | undefined): TerminalPane {
  const content = paneId === undefined ? undefined : feature.state.panes.get(paneId);
  if (content?.kind !== 'terminal') throw new Error(`no terminal in ${paneId}`);
  return content.pane;
}

describe('the Terminals view', () => {
  it('keeps terminals alive and drawn across view switches', async () => {
    const app = await renderApp();
    let paneId: string | undefined;
    await act(async () => {
      paneId = await app.feature.openTerminal(target);
    });
    expect(app.model.ui.getState().view).toBe('terminals');
    await settle(() => expect(app.core.opened).toHaveLength(1));
    const pane = paneOf(app.feature, paneId);
    const section = (): Element | null =>
      app.root.querySelector('section[aria-label^="Terminal web"]');
    await settle(() => expect(section()?.contains(pane.element)).toBe(true));

    act(() => app.model.ui.getState().navigate('nodes'));
    expect(section()).toBeNull();
    expect(pane.element.isConnected).toBe(false);
    act(() => app.model.ui.getState().navigate('terminals'));
    await settle(() => expect(section()?.contains(pane.element)).toBe(true));
    // The same xterm, never reopened or closed.
    expect(paneOf(app.feature, paneId)).toBe(pane);
    expect(app.core.opened).toHaveLength(1);
    expect(app.core.closed).toEqual([]);
    expect(app.root.querySelector('[role="tab"][aria-selected="true"]')?.textContent).toContain(
      'web › /bin/ash',
    );
  });

  it('splits, moves focus between panes and closes them', async () => {
    const app = await renderApp();
    let first: string | undefined;
    await act(async () => {
      first = await app.feature.openTerminal(target);
    });
    await settle(() => expect(app.core.opened).toHaveLength(1));
    await act(async () => {
      app.feature.split('right');
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    await settle(() => expect(app.core.opened).toHaveLength(2));
    // The split runs what the first pane runs: the shell the core found for it.
    expect(app.core.opened[0]).not.toHaveProperty('command');
    expect(app.core.opened[1]?.command).toEqual(['/bin/ash']);
    const tab = app.feature.activeTab();
    const [left, right] = paneIds(tab?.layout ?? { kind: 'pane', paneId: '' });
    expect(left).toBe(first);
    expect(tab?.activePaneId).toBe(right);
    expect(app.root.querySelectorAll('section.term-pane')).toHaveLength(2);

    act(() => app.feature.moveFocus('left'));
    expect(app.feature.activeTab()?.activePaneId).toBe(left);
    act(() => app.feature.moveFocus('left'));
    expect(app.feature.activeTab()?.activePaneId).toBe(left);

    act(() => app.feature.closePane(left ?? ''));
    await settle(() => expect(app.core.closed).toEqual(['t1']));
    expect(app.feature.activeTab()?.activePaneId).toBe(right);
    expect(app.root.querySelectorAll('section.term-pane')).toHaveLength(1);

    act(() => app.feature.closePane(right ?? ''));
    await settle(() => expect(app.core.closed).toEqual(['t1', 't2']));
    expect(app.feature.state.tabs).toEqual([]);
    expect(app.root.textContent).toContain('No terminals open');
  });

  it('shows the exit code and reopens from the banner', async () => {
    const app = await renderApp();
    await act(async () => {
      await app.feature.openTerminal(target);
    });
    await settle(() => expect(app.core.subscriptions).toBe(1));
    act(() => app.core.sink().next({ type: 'exit', exitCode: 3, reason: 'Exited with code 3.' }));
    const banner = (): Element | null => app.root.querySelector('[aria-label="Session ended"]');
    await settle(() => expect(banner()?.textContent).toContain('exited with code 3'));
    const reopen = [...(banner()?.querySelectorAll('button') ?? [])].find(
      (button) => button.textContent === 'Reopen',
    );
    act(() => reopen?.click());
    await settle(() => expect(app.core.opened).toHaveLength(2));
    await settle(() => expect(banner()).toBeNull());
  });

  it('ends every terminal with the window', async () => {
    const app = await renderApp();
    await act(async () => {
      await app.feature.openTerminal(target);
      await app.feature.openTerminal({ ...target, kind: 'attach' });
    });
    await settle(() => expect(app.core.opened).toHaveLength(2));
    expect(app.feature.state.tabs).toHaveLength(2);
    act(() => app.feature.dispose());
    await settle(() => expect([...app.core.closed].sort()).toEqual(['t1', 't2']));
  });
});
