/** Keyboard plumbing shared by the shell and the views. */

/** True when a key press belongs to a text field (or an editor), not to a shortcut. */
export function isEditableTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(
      target.type,
    );
  }
  return false;
}

/** "Ctrl+K" on Linux and Windows, "⌘K" on macOS: what the palette shows. */
export function isMac(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
}

export function modKeyLabel(key: string): string {
  return isMac() ? `⌘${key}` : `Ctrl+${key}`;
}

interface ModifiedKey {
  readonly key: string;
  readonly code: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  readonly shiftKey: boolean;
}

/**
 * Which view (0-based) a key press goes to: Ctrl/⌘+1–9 in the desktop app; in a browser
 * window, where Ctrl/⌘+1–9 switch the browser's tabs, Alt+Shift (⌥⇧) +1–9.
 */
export function viewShortcutIndex(
  event: ModifiedKey,
  mac: boolean,
  browser: boolean,
): number | undefined {
  if (browser) {
    if (!event.altKey || !event.shiftKey || event.ctrlKey || event.metaKey) return undefined;
    const digit = /^Digit([1-9])$/.exec(event.code)?.[1];
    return digit === undefined ? undefined : Number(digit) - 1;
  }
  const mod = mac ? event.metaKey : event.ctrlKey;
  if (!mod || event.altKey || event.shiftKey || !/^[1-9]$/.test(event.key)) return undefined;
  return Number(event.key) - 1;
}

export function viewShortcutLabel(index: number, mac: boolean, browser: boolean): string {
  if (browser) return `${mac ? '⌥⇧' : 'Alt+Shift+'}${index + 1}`;
  return modKeyLabel(String(index + 1));
}
