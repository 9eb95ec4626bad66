import { Dialog } from '../ui/Dialog';
import { shortcutLabel, type TerminalShortcut } from '../features/terminal/shortcuts';
import { useModel } from './context';
import { isMac, modKeyLabel, viewShortcutLabel } from './keyboard';
import type { AppModel } from './model';

interface Binding {
  readonly keys: string;
  readonly what: string;
}

function terminalBindings(mac: boolean, browser: boolean): Binding[] {
  const keys = (shortcut: TerminalShortcut): string => shortcutLabel(shortcut, mac, browser) ?? '';
  return [
    { keys: keys({ action: 'copy' }), what: 'Copy the selection' },
    { keys: keys({ action: 'paste' }), what: 'Paste' },
    { keys: keys({ action: 'find' }), what: 'Find in the terminal' },
    {
      keys: `${keys({ action: 'zoom', step: 1 })} / ${keys({ action: 'zoom', step: -1 })} / ${keys({ action: 'zoom', step: 0 })}`,
      what: 'Font bigger, smaller, default',
    },
    { keys: keys({ action: 'split', direction: 'right' }), what: 'Split the pane right' },
    { keys: keys({ action: 'split', direction: 'down' }), what: 'Split the pane down' },
    { keys: keys({ action: 'close-pane' }), what: 'Close the pane' },
    {
      keys: keys({ action: 'focus', direction: 'left' }).replace('←', '← → ↑ ↓'),
      what: 'Move to the next pane that way',
    },
    {
      keys: `${keys({ action: 'tab', step: -1 })} / ${keys({ action: 'tab', step: 1 })}`,
      what: 'Previous / next tab',
    },
    {
      keys: `${keys({ action: 'open-palette' })} / ${keys({ action: 'palette' })}`,
      what: 'Command palette (the settings can give Ctrl+K to the shell)',
    },
    { keys: keys({ action: 'leave', step: 1 }), what: 'Leave the terminal, to its tab' },
    { keys: keys({ action: 'leave', step: -1 }), what: 'Leave the terminal, to the sidebar' },
    { keys: keys({ action: 'tab-focus' }), what: 'Tab moves focus / Tab goes to the terminal' },
    { keys: keys({ action: 'accessible-view' }), what: 'The terminal’s text as a document' },
    { keys: '← → Home End  Delete', what: 'On the tabs: move between tabs, close one' },
    { keys: 'Enter', what: 'Reopen an ended session' },
  ];
}

function Bindings({ title, bindings }: { title: string; bindings: readonly Binding[] }) {
  return (
    <section className="shortcuts-group" aria-label={title}>
      <h3 className="subheading">{title}</h3>
      <dl className="shortcuts-list">
        {bindings.map((binding) => (
          <div key={binding.what} className="shortcuts-row">
            <dt>
              <kbd>{binding.keys}</kbd>
            </dt>
            <dd>{binding.what}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/**
 * Every keyboard shortcut, as it works where Porthole runs: in a browser window some of
 * the desktop's belong to the browser, and this says which and what replaces them.
 */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const model = useModel();
  const mac = isMac();
  const browser = model.client.mode === 'browser';
  const views = `${viewShortcutLabel(0, mac, browser)}–9`;
  const desktop = {
    views: `${viewShortcutLabel(0, mac, false)}–9`,
    close: shortcutLabel({ action: 'close-pane' }, mac, false) ?? '',
    tabs: mac ? '⇧⌘[ / ⇧⌘]' : 'Ctrl+PageUp / Ctrl+PageDown',
  };
  const replaced = {
    views: `${viewShortcutLabel(0, mac, true)}–9`,
    close: shortcutLabel({ action: 'close-pane' }, mac, true) ?? '',
    tabs: `${shortcutLabel({ action: 'tab', step: -1 }, mac, true) ?? ''} / ${shortcutLabel({ action: 'tab', step: 1 }, mac, true) ?? ''}`,
  };
  return (
    <Dialog
      title="Keyboard shortcuts"
      wide
      onClose={onClose}
      footer={
        <button type="button" className="btn btn-primary" data-autofocus onClick={onClose}>
          Close
        </button>
      }
    >
      {/* A Tab stop of its own: the list scrolls, and the keyboard must scroll it too. */}
      <div className="shortcuts" tabIndex={0} role="group" aria-label="Shortcut list">
        <p className="shortcuts-note" role="note">
          {browser ? (
            <>
              In a browser window, <kbd>{desktop.views}</kbd>, <kbd>{desktop.close}</kbd> and{' '}
              <kbd>{desktop.tabs}</kbd> belong to the browser: they switch and close its tabs and
              windows, and never reach Porthole. Here Porthole uses <kbd>{replaced.views}</kbd>,{' '}
              <kbd>{replaced.close}</kbd> and <kbd>{replaced.tabs}</kbd> instead.
            </>
          ) : (
            <>
              In browser mode (<code>npm run web</code>), where the browser keeps{' '}
              <kbd>{desktop.views}</kbd>, <kbd>{desktop.close}</kbd> and <kbd>{desktop.tabs}</kbd>{' '}
              for itself, these are <kbd>{replaced.views}</kbd>, <kbd>{replaced.close}</kbd> and{' '}
              <kbd>{replaced.tabs}</kbd>.
            </>
          )}
        </p>
        <Bindings
          title="Everywhere"
          bindings={[
            { keys: modKeyLabel('K'), what: 'Command palette: every action and place' },
            { keys: views, what: 'Go to the views, in sidebar order' },
            { keys: '?', what: 'These shortcuts' },
          ]}
        />
        <Bindings
          title="Tables"
          bindings={[
            { keys: 'Click', what: 'Select a row and open its details' },
            { keys: '/', what: 'Filter' },
            { keys: 'j / k  ↓ / ↑', what: 'Move the selection (the details follow)' },
            { keys: 'PageUp / PageDown  Home / End', what: 'Move by a page, to the ends' },
            { keys: 'Enter', what: 'Open the details' },
            { keys: 'Esc', what: 'Close the details' },
          ]}
        />
        <Bindings title="Terminals" bindings={terminalBindings(mac, browser)} />
      </div>
    </Dialog>
  );
}

export function openShortcutsDialog(model: AppModel): void {
  model.ui.getState().openDialog({
    key: 'shortcuts',
    render: (close) => <ShortcutsDialog onClose={close} />,
  });
}
