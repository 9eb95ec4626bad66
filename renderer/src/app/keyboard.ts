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
