import { describe, expect, it } from 'vitest';
import { viewShortcutIndex, viewShortcutLabel } from './keyboard';

const press = (key: string, code: string, modifiers: Partial<Record<string, boolean>> = {}) => ({
  key,
  code,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...modifiers,
});

describe('view shortcuts', () => {
  it('are Ctrl/⌘+1–9 in the desktop app', () => {
    expect(viewShortcutIndex(press('3', 'Digit3', { ctrlKey: true }), false, false)).toBe(2);
    expect(viewShortcutIndex(press('3', 'Digit3', { metaKey: true }), true, false)).toBe(2);
    expect(viewShortcutIndex(press('3', 'Digit3', { ctrlKey: true }), true, false)).toBeUndefined();
    expect(viewShortcutLabel(0, false, false)).toBe('Ctrl+1');
  });

  it('are Alt+Shift+1–9 in a browser window, whose tabs Ctrl+1–9 switch', () => {
    expect(viewShortcutIndex(press('3', 'Digit3', { ctrlKey: true }), false, true)).toBeUndefined();
    expect(
      viewShortcutIndex(press('#', 'Digit3', { altKey: true, shiftKey: true }), false, true),
    ).toBe(2);
    expect(viewShortcutLabel(8, false, true)).toBe('Alt+Shift+9');
    expect(viewShortcutLabel(0, true, true)).toBe('⌥⇧1');
  });
});
