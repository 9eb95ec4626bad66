import { isMac, viewShortcutLabel } from './keyboard';
import { openShortcutsDialog } from './ShortcutsDialog';
import type { Command, CommandProvider, ViewDefinition } from './registry';

/** Navigation to every view, and the app's own settings. */
export const appCommands =
  (views: readonly ViewDefinition[]): CommandProvider =>
  (model) => {
    const ui = model.ui.getState();
    const mac = isMac();
    const browser = model.client.mode === 'browser';
    const navigation: Command[] = views.map((view, index) => ({
      id: `go.${view.id}`,
      title: `Go to ${view.title}`,
      group: 'Go to',
      shortcut: index < 9 ? viewShortcutLabel(index, mac, browser) : undefined,
      run: () => ui.navigate(view.id),
    }));
    const themes: Command[] = (
      [
        ['system', 'Theme: follow the system'],
        ['light', 'Theme: light'],
        ['dark', 'Theme: dark'],
      ] as const
    )
      .filter(([theme]) => theme !== ui.theme)
      .map(([theme, title]) => ({
        id: `theme.${theme}`,
        title,
        group: 'Settings',
        run: () => ui.setTheme(theme),
      }));
    const help: Command = {
      id: 'help.shortcuts',
      title: 'Keyboard shortcuts',
      group: 'Help',
      shortcut: '?',
      run: () => openShortcutsDialog(model),
    };
    const singleKeys: Command = {
      id: 'settings.single-key-shortcuts',
      title: ui.singleKeyShortcuts
        ? 'Turn off single-key shortcuts (/ j k ?)'
        : 'Turn on single-key shortcuts (/ j k ?)',
      group: 'Settings',
      run: () => ui.setSingleKeyShortcuts(!ui.singleKeyShortcuts),
    };
    return [...navigation, ...themes, singleKeys, help];
  };
