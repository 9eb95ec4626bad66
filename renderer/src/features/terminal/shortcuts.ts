/**
 * The terminal's own shortcuts. Everything else goes to the process: a shortcut here
 * takes a key away from shells and editors, so they follow what native terminals use
 * (GNOME Terminal / Terminator on Linux and Windows, iTerm on macOS) and need Shift or a
 * modifier no terminal program reads.
 */
import type { FocusDirection, SplitDirection } from './layout';

export type TerminalShortcut =
  | { readonly action: 'copy' }
  | { readonly action: 'paste' }
  | { readonly action: 'find' }
  | { readonly action: 'zoom'; readonly step: 1 | -1 | 0 }
  | { readonly action: 'split'; readonly direction: SplitDirection }
  | { readonly action: 'close-pane' }
  | { readonly action: 'focus'; readonly direction: FocusDirection }
  | { readonly action: 'tab'; readonly step: 1 | -1 }
  | { readonly action: 'palette' }
  /** Ctrl/⌘+K: the palette, as everywhere in the app, unless the settings give it to the program. */
  | { readonly action: 'open-palette' }
  /** F6 (Shift+F6 backwards): out of the terminal, whatever the program, to the tab strip. */
  | { readonly action: 'leave'; readonly step: 1 | -1 }
  /** Ctrl+M (⌃⇧M on macOS, as in VS Code): Tab moves focus instead of going to the program. */
  | { readonly action: 'tab-focus' }
  /** Alt+F2 (⌥F2), as in VS Code: the terminal's text as a document to read. */
  | { readonly action: 'accessible-view' }
  /** Not the terminal's: let the app have it (Ctrl+1…9 switch views). */
  | { readonly action: 'app' };

export interface KeyLike {
  readonly key: string;
  /** The physical key ("Digit3", "KeyW"): what Alt+Shift combinations are read by. */
  readonly code?: string;
  readonly ctrlKey: boolean;
  readonly shiftKey: boolean;
  readonly altKey: boolean;
  readonly metaKey: boolean;
}

const arrows: Readonly<Record<string, FocusDirection>> = {
  ArrowLeft: 'left',
  ArrowRight: 'right',
  ArrowUp: 'up',
  ArrowDown: 'down',
};

function zoomStep(key: string): 1 | -1 | 0 | undefined {
  if (key === '=' || key === '+') return 1;
  if (key === '-' || key === '_') return -1;
  if (key === '0') return 0;
  return undefined;
}

/**
 * In a browser window (browser mode) some of the desktop's shortcuts belong to the browser
 * and never reach the page: Ctrl/⌘+1–9 switch the browser's tabs, Ctrl+Shift+W / ⌘W close
 * its window or tab, Ctrl+PageUp/PageDown / ⌘⇧[ ] move between its tabs. There Porthole
 * uses Alt+Shift (⌥⇧) with the same keys instead, which browsers leave to pages.
 */
function browserShortcut(event: KeyLike): TerminalShortcut | undefined {
  if (!event.altKey || !event.shiftKey || event.ctrlKey || event.metaKey) return undefined;
  const code = event.code ?? '';
  if (/^Digit[1-9]$/.test(code)) return { action: 'app' };
  if (code === 'KeyW') return { action: 'close-pane' };
  if (code === 'PageUp' || code === 'BracketLeft') return { action: 'tab', step: -1 };
  if (code === 'PageDown' || code === 'BracketRight') return { action: 'tab', step: 1 };
  return undefined;
}

/** The desktop shortcuts a browser keeps for itself (see browserShortcut). */
function keptByBrowser(shortcut: TerminalShortcut, event: KeyLike, mac: boolean): boolean {
  if (shortcut.action === 'app' || shortcut.action === 'close-pane') return true;
  // Ctrl+PageUp/PageDown on Linux and Windows; ⌘⇧[ ] on macOS.
  if (shortcut.action === 'tab') return mac || event.key === 'PageUp' || event.key === 'PageDown';
  return false;
}

export function terminalShortcut(
  event: KeyLike,
  mac: boolean,
  browser = false,
): TerminalShortcut | undefined {
  if (browser) {
    const own = browserShortcut(event) ?? accessibilityShortcut(event, mac);
    if (own !== undefined) return own;
    const desktop = desktopShortcut(event, mac);
    return desktop === undefined || keptByBrowser(desktop, event, mac) ? undefined : desktop;
  }
  return desktopShortcut(event, mac);
}

/**
 * The keys that get a keyboard user out of a terminal or to its text: the same on every
 * platform and in a browser window (browsers leave F6 and Alt+F2 to a page that takes them).
 */
function accessibilityShortcut(event: KeyLike, mac: boolean): TerminalShortcut | undefined {
  const plain = !event.ctrlKey && !event.altKey && !event.metaKey;
  if (event.key === 'F6' && plain) return { action: 'leave', step: event.shiftKey ? -1 : 1 };
  if (event.key === 'F2' && event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey)
    return { action: 'accessible-view' };
  const m = event.code === 'KeyM' || event.key.toLowerCase() === 'm';
  if (m && event.ctrlKey && !event.altKey && !event.metaKey && event.shiftKey === mac)
    return { action: 'tab-focus' };
  return undefined;
}

function desktopShortcut(event: KeyLike, mac: boolean): TerminalShortcut | undefined {
  const own = accessibilityShortcut(event, mac);
  if (own !== undefined) return own;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (mac) {
    if (!event.metaKey || event.ctrlKey) return undefined;
    const direction = arrows[key];
    if (event.altKey) return direction === undefined ? undefined : { action: 'focus', direction };
    const zoom = zoomStep(key);
    if (zoom !== undefined && !event.shiftKey) return { action: 'zoom', step: zoom };
    if (key === 'f') return { action: 'find' };
    if (key === 'd') return { action: 'split', direction: event.shiftKey ? 'down' : 'right' };
    if (key === 'w' && !event.shiftKey) return { action: 'close-pane' };
    if (event.shiftKey && (key === '[' || key === '{')) return { action: 'tab', step: -1 };
    if (event.shiftKey && (key === ']' || key === '}')) return { action: 'tab', step: 1 };
    if (event.shiftKey && key === 'p') return { action: 'palette' };
    if (key === 'k') return { action: 'open-palette' };
    if (/^[1-9]$/.test(key)) return { action: 'app' };
    return undefined;
  }
  if (event.metaKey) return undefined;
  if (event.altKey && !event.ctrlKey && !event.shiftKey) {
    const direction = arrows[key];
    return direction === undefined ? undefined : { action: 'focus', direction };
  }
  if (!event.ctrlKey || event.altKey) return undefined;
  if (event.shiftKey) {
    switch (key) {
      case 'c':
        return { action: 'copy' };
      case 'v':
        return { action: 'paste' };
      case 'f':
        return { action: 'find' };
      case 'e':
        return { action: 'split', direction: 'right' };
      case 'o':
        return { action: 'split', direction: 'down' };
      case 'w':
        return { action: 'close-pane' };
      case 'p':
        return { action: 'palette' };
      case '+':
        return { action: 'zoom', step: 1 };
    }
    return undefined;
  }
  if (key === 'k') return { action: 'open-palette' };
  if (key === 'PageUp') return { action: 'tab', step: -1 };
  if (key === 'PageDown') return { action: 'tab', step: 1 };
  const zoom = zoomStep(key);
  if (zoom !== undefined) return { action: 'zoom', step: zoom };
  if (/^[1-9]$/.test(key)) return { action: 'app' };
  return undefined;
}

/** How menus and tooltips write a shortcut on this platform (and in a browser window). */
export function shortcutLabel(
  shortcut: TerminalShortcut,
  mac: boolean,
  browser = false,
): string | undefined {
  const mod = mac ? '⌘' : 'Ctrl+';
  const shift = mac ? '⇧' : 'Shift+';
  const altShift = mac ? '⌥⇧' : 'Alt+Shift+';
  if (browser && shortcut.action === 'close-pane') return `${altShift}W`;
  if (browser && shortcut.action === 'tab') {
    return mac
      ? `${altShift}${shortcut.step === 1 ? ']' : '['}`
      : `${altShift}${shortcut.step === 1 ? 'PageDown' : 'PageUp'}`;
  }
  switch (shortcut.action) {
    case 'copy':
      return mac ? '⌘C' : 'Ctrl+Shift+C';
    case 'paste':
      return mac ? '⌘V' : 'Ctrl+Shift+V';
    case 'find':
      return mac ? '⌘F' : 'Ctrl+Shift+F';
    case 'zoom':
      return `${mod}${shortcut.step === 1 ? '=' : shortcut.step === -1 ? '-' : '0'}`;
    case 'split':
      if (mac) return shortcut.direction === 'right' ? '⌘D' : '⇧⌘D';
      return shortcut.direction === 'right' ? 'Ctrl+Shift+E' : 'Ctrl+Shift+O';
    case 'close-pane':
      return mac ? '⌘W' : 'Ctrl+Shift+W';
    case 'focus':
      return `${mac ? '⌥⌘' : 'Alt+'}${{ left: '←', right: '→', up: '↑', down: '↓' }[shortcut.direction]}`;
    case 'tab':
      if (mac) return `${shift}${mod}${shortcut.step === 1 ? ']' : '['}`;
      return `Ctrl+${shortcut.step === 1 ? 'PageDown' : 'PageUp'}`;
    case 'palette':
      return `${mac ? '⇧⌘' : 'Ctrl+Shift+'}P`;
    case 'open-palette':
      return mac ? '⌘K' : 'Ctrl+K';
    case 'leave':
      return shortcut.step === 1 ? 'F6' : `${shift}F6`;
    case 'tab-focus':
      return mac ? '⌃⇧M' : 'Ctrl+M';
    case 'accessible-view':
      return mac ? '⌥F2' : 'Alt+F2';
    case 'app':
      return undefined;
  }
}
