import type { MenuItemConstructorOptions } from 'electron';

/**
 * The usual menus, built from Electron's roles so they follow each platform's
 * conventions (and accelerators) without us restating them. On macOS "About" lives in
 * the app menu; elsewhere in Help.
 */
export function menuTemplate(platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    { role: 'help', submenu: mac ? [] : [{ role: 'about' }] },
  ];
}
