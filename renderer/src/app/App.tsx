import { useEffect, useState } from 'react';
import { ResourceActionsProvider, useModel, useUi } from './context';
import { CommandPalette } from './CommandPalette';
import { commandProviders, resourceActions, views } from './features';
import { isEditableTarget, isMac, viewShortcutIndex } from './keyboard';
import { openShortcutsDialog } from './ShortcutsDialog';
import { Toasts } from './Toasts';
import { ReloadButton } from '../ui/Button';
import { InfoBanner } from '../ui/ErrorBanner';
import { focusHome, keepFocus, rescueFocus } from '../ui/focus';
import type { ConnectionState } from '../platform';
import { Sidebar } from './Sidebar';
import { TopBar } from './TopBar';
import { Prompts } from '../features/prompts';

/** "Reconnecting…" / "Closed" above the views, while the core is out of reach. */
function ConnectionBanner() {
  const model = useModel();
  const [state, setState] = useState<ConnectionState>(model.client.connectionState);
  useEffect(() => {
    const subscription = model.client.onDidChangeConnection(setState);
    return () => subscription.dispose();
  }, [model]);
  if (state === 'connected') return null;
  return (
    <div className="connection-banner">
      <InfoBanner tone="warn" actions={state === 'closed' && <ReloadButton />}>
        {state === 'reconnecting' ? (
          <>
            <strong>Reconnecting to the Porthole core…</strong> What you see may be out of date;
            actions wait until the connection is back.
          </>
        ) : (
          <>
            <strong>The connection to the Porthole core is closed.</strong>{' '}
            {model.client.mode === 'browser'
              ? 'The host stopped: start it again (npm run web) and reload this page.'
              : 'Restart Porthole.'}
          </>
        )}
      </InfoBanner>
    </div>
  );
}

function DialogHost() {
  const dialog = useUi((state) => state.dialog);
  const closeDialog = useUi((state) => state.closeDialog);
  if (dialog === undefined) return null;
  return <div key={dialog.key}>{dialog.render(closeDialog)}</div>;
}

/**
 * Shortcuts that work everywhere: the palette, and Ctrl/Cmd+1…9 for the views (Alt+Shift+1…9
 * in a browser window, whose tabs Ctrl/Cmd+1…9 switch).
 */
function useGlobalShortcuts(): void {
  const model = useModel();
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      const mac = isMac();
      const ui = model.ui.getState();
      if (
        event.key === '?' &&
        ui.singleKeyShortcuts &&
        !event.ctrlKey &&
        !event.metaKey &&
        !event.altKey &&
        !isEditableTarget(event.target) &&
        ui.dialog === undefined &&
        !ui.paletteOpen
      ) {
        event.preventDefault();
        openShortcutsDialog(model);
        return;
      }
      const mod = mac ? event.metaKey : event.ctrlKey;
      if (mod && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        if (ui.dialog === undefined) ui.setPaletteOpen(!ui.paletteOpen);
        return;
      }
      const index = viewShortcutIndex(event, mac, model.client.mode === 'browser');
      const view = index === undefined ? undefined : views[index];
      if (view !== undefined && ui.dialog === undefined) {
        event.preventDefault();
        ui.setPaletteOpen(false);
        ui.navigate(view.id);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [model]);
}

/** The user's theme choice, on <html> for the stylesheet. */
function useThemeAttribute(): void {
  const theme = useUi((state) => state.theme);
  useEffect(() => {
    if (theme === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', theme);
  }, [theme]);
}

export function App() {
  const current = useUi((state) => state.view);
  const paletteOpen = useUi((state) => state.paletteOpen);
  const setPaletteOpen = useUi((state) => state.setPaletteOpen);
  useGlobalShortcuts();
  useThemeAttribute();
  const view = views.find((candidate) => candidate.id === current) ?? views[0];
  const View = view?.component;

  useEffect(() => {
    document.title = view === undefined ? 'Porthole' : `${view.title} — Porthole`;
    // A view switch by a shortcut takes away what had the focus: the new view's home gets it.
    rescueFocus();
  }, [view]);

  useEffect(() => {
    const keeper = keepFocus();
    return () => keeper.dispose();
  }, []);

  return (
    <ResourceActionsProvider value={resourceActions}>
      <div className="shell">
        <a
          className="skip-link"
          href="#main"
          onClick={(event) => {
            event.preventDefault();
            focusHome()?.focus();
          }}
        >
          Skip to {view?.title ?? 'the view'}
        </a>
        <Sidebar views={views} />
        <TopBar title={view?.title ?? 'Porthole'} />
        <main id="main" className="main" aria-label={view?.title} tabIndex={-1}>
          <ConnectionBanner />
          {View !== undefined && <View key={view?.id} />}
        </main>
        <DialogHost />
        <Prompts />
        {paletteOpen && (
          <CommandPalette providers={commandProviders} onClose={() => setPaletteOpen(false)} />
        )}
        <Toasts />
      </div>
    </ResourceActionsProvider>
  );
}
