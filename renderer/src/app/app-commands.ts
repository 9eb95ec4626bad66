import { modKeyLabel } from './keyboard';
import type { Command, CommandProvider, ViewDefinition } from './registry';

/** Navigation to every view, and the app's own settings. */
export const appCommands =
  (views: readonly ViewDefinition[]): CommandProvider =>
  (model) => {
    const ui = model.ui.getState();
    const navigation: Command[] = views.map((view, index) => ({
      id: `go.${view.id}`,
      title: `Go to ${view.title}`,
      group: 'Go to',
      shortcut: index < 9 ? modKeyLabel(String(index + 1)) : undefined,
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
    return [...navigation, ...themes];
  };
