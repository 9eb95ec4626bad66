import { describe, expect, it } from 'vitest';
import { shortcutLabel, terminalShortcut, type KeyLike } from './shortcuts';

function key(keyName: string, modifiers: Partial<KeyLike> = {}): KeyLike {
  return {
    key: keyName,
    ctrlKey: false,
    shiftKey: false,
    altKey: false,
    metaKey: false,
    ...modifiers,
  };
}

describe('terminalShortcut on Linux and Windows', () => {
  const linux = (event: KeyLike) => terminalShortcut(event, false);

  it('leaves what programs read to the program', () => {
    for (const event of [
      key('c', { ctrlKey: true }), // SIGINT
      key('v', { ctrlKey: true }),
      key('w', { ctrlKey: true }),
      key('r', { ctrlKey: true }),
      key('ArrowLeft', { ctrlKey: true }),
      key('b', { altKey: true }),
      key('a'),
      key('Enter'),
    ]) {
      expect(linux(event)).toBeUndefined();
    }
  });

  it('maps the terminal shortcuts', () => {
    expect(linux(key('C', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'copy' });
    expect(linux(key('V', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'paste' });
    expect(linux(key('F', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'find' });
    expect(linux(key('=', { ctrlKey: true }))).toEqual({ action: 'zoom', step: 1 });
    expect(linux(key('+', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'zoom', step: 1 });
    expect(linux(key('-', { ctrlKey: true }))).toEqual({ action: 'zoom', step: -1 });
    expect(linux(key('0', { ctrlKey: true }))).toEqual({ action: 'zoom', step: 0 });
    expect(linux(key('E', { ctrlKey: true, shiftKey: true }))).toEqual({
      action: 'split',
      direction: 'right',
    });
    expect(linux(key('O', { ctrlKey: true, shiftKey: true }))).toEqual({
      action: 'split',
      direction: 'down',
    });
    expect(linux(key('W', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'close-pane' });
    expect(linux(key('ArrowUp', { altKey: true }))).toEqual({ action: 'focus', direction: 'up' });
    expect(linux(key('PageDown', { ctrlKey: true }))).toEqual({ action: 'tab', step: 1 });
    expect(linux(key('P', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'palette' });
    expect(linux(key('3', { ctrlKey: true }))).toEqual({ action: 'app' });
  });

  it('has the keys out of a terminal and to its text', () => {
    expect(linux(key('k', { ctrlKey: true }))).toEqual({ action: 'open-palette' });
    expect(linux(key('F6'))).toEqual({ action: 'leave', step: 1 });
    expect(linux(key('F6', { shiftKey: true }))).toEqual({ action: 'leave', step: -1 });
    expect(linux(key('m', { ctrlKey: true }))).toEqual({ action: 'tab-focus' });
    expect(linux(key('F2', { altKey: true }))).toEqual({ action: 'accessible-view' });
    expect(linux(key('F6', { ctrlKey: true }))).toBeUndefined();
    expect(linux(key('m', { ctrlKey: true, shiftKey: true }))).toBeUndefined();
    // The same in a browser window.
    expect(terminalShortcut(key('F6'), false, true)).toEqual({ action: 'leave', step: 1 });
    expect(terminalShortcut(key('m', { ctrlKey: true }), false, true)).toEqual({
      action: 'tab-focus',
    });
  });
});

describe('terminalShortcut on macOS', () => {
  const mac = (event: KeyLike) => terminalShortcut(event, true);

  it('uses ⌘, leaving Ctrl to the program', () => {
    expect(mac(key('c', { ctrlKey: true }))).toBeUndefined();
    expect(mac(key('f', { metaKey: true }))).toEqual({ action: 'find' });
    expect(mac(key('d', { metaKey: true }))).toEqual({ action: 'split', direction: 'right' });
    expect(mac(key('D', { metaKey: true, shiftKey: true }))).toEqual({
      action: 'split',
      direction: 'down',
    });
    expect(mac(key('ArrowLeft', { metaKey: true, altKey: true }))).toEqual({
      action: 'focus',
      direction: 'left',
    });
    expect(mac(key('k', { metaKey: true }))).toEqual({ action: 'open-palette' });
    expect(mac(key('m', { ctrlKey: true }))).toBeUndefined(); // Ctrl+M is the program's Enter
    expect(mac(key('M', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'tab-focus' });
    expect(mac(key('c', { metaKey: true }))).toBeUndefined(); // the browser's copy event
  });
});

describe('shortcutLabel', () => {
  it('writes shortcuts the platform way', () => {
    expect(shortcutLabel({ action: 'copy' }, false)).toBe('Ctrl+Shift+C');
    expect(shortcutLabel({ action: 'split', direction: 'down' }, true)).toBe('⇧⌘D');
    expect(shortcutLabel({ action: 'focus', direction: 'left' }, false)).toBe('Alt+←');
    expect(shortcutLabel({ action: 'app' }, false)).toBeUndefined();
  });
});

describe('terminalShortcut in a browser window', () => {
  const browser = (event: KeyLike, mac = false) => terminalShortcut(event, mac, true);
  const altShift = (code: string, keyName: string) =>
    key(keyName, { code, altKey: true, shiftKey: true });

  it('leaves to the browser what it keeps: Ctrl+1–9, Ctrl+Shift+W, Ctrl+PageUp/PageDown', () => {
    expect(browser(key('3', { ctrlKey: true }))).toBeUndefined();
    expect(browser(key('W', { ctrlKey: true, shiftKey: true }))).toBeUndefined();
    expect(browser(key('PageDown', { ctrlKey: true }))).toBeUndefined();
    expect(browser(key('w', { metaKey: true }), true)).toBeUndefined();
    expect(browser(key('2', { metaKey: true }), true)).toBeUndefined();
  });

  it('uses Alt+Shift with the same keys instead, and keeps the rest', () => {
    expect(browser(altShift('KeyW', 'W'))).toEqual({ action: 'close-pane' });
    expect(browser(altShift('Digit3', '#'))).toEqual({ action: 'app' });
    expect(browser(altShift('PageDown', 'PageDown'))).toEqual({ action: 'tab', step: 1 });
    expect(browser(altShift('BracketLeft', '{'), true)).toEqual({ action: 'tab', step: -1 });
    expect(browser(key('E', { ctrlKey: true, shiftKey: true }))).toEqual({
      action: 'split',
      direction: 'right',
    });
    expect(browser(key('C', { ctrlKey: true, shiftKey: true }))).toEqual({ action: 'copy' });
    expect(shortcutLabel({ action: 'close-pane' }, false, true)).toBe('Alt+Shift+W');
    expect(shortcutLabel({ action: 'tab', step: 1 }, true, true)).toBe('⌥⇧]');
    expect(shortcutLabel({ action: 'close-pane' }, false)).toBe('Ctrl+Shift+W');
  });
});
