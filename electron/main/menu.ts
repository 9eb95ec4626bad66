import type { MenuItemConstructorOptions } from 'electron';
import type { ShellFeatures } from './security';

/**
 * The usual menus, built from Electron's roles so they follow each platform's
 * conventions (and accelerators) without us restating them. On macOS "About" lives in
 * the app menu; elsewhere in Help. Without DevTools (a packaged build) the View menu is
 * the role's minus "Toggle Developer Tools" (and its accelerator).
 */
export function menuTemplate(
  platform: NodeJS.Platform,
  features: ShellFeatures,
): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const view: MenuItemConstructorOptions = features.devTools
    ? { role: 'viewMenu' }
    : {
        label: 'View',
        submenu: [
          { role: 'reload' },
          { role: 'forceReload' },
          { type: 'separator' },
          { role: 'resetZoom' },
          { role: 'zoomIn' },
          { role: 'zoomOut' },
          { type: 'separator' },
          { role: 'togglefullscreen' },
        ],
      };
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    view,
    { role: 'windowMenu' },
    { role: 'help', submenu: mac ? [] : [{ role: 'about' }] },
  ];
}
