/**
 * Focus never falls to <body>. When what had the focus goes away (a closed dialog whose
 * opener is gone, a closed terminal tab, an expired toast, a removed row's detail pane, a
 * view switch), focus goes to the view's home: the element marked `data-focus-home` in
 * <main> (a view's table, the Terminals view's selected tab), else the first control in
 * <main>, else <main> itself.
 *
 * Chromium fires `focusout` when a focused element is removed, so one listener catches
 * most losses; the places that know they remove the focus also call rescueFocus, which
 * costs nothing when focus is fine. A click on empty space is the user's choice of where
 * focus goes: it is left alone.
 */
import type { Disposable } from '../../../shared/lifecycle';

const controls =
  'button:not(:disabled), [href], input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

function lost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

/** The view's home, inside `root` (the main area by default). */
export function focusHome(root?: Element | null): HTMLElement | undefined {
  const main = document.querySelector<HTMLElement>('main');
  const scope = root?.isConnected === true ? root : main;
  if (scope === null || scope === undefined) return undefined;
  return (
    scope.querySelector<HTMLElement>('[data-focus-home]') ??
    [...scope.querySelectorAll<HTMLElement>(controls)].find(
      (element) => element.offsetParent !== null,
    ) ??
    (scope instanceof HTMLElement ? scope : undefined)
  );
}

/**
 * After React has committed: if focus is on <body>, moves it to the home. First in a
 * microtask, which runs before the next key event is dispatched: a key pressed right
 * after a shortcut that switched the view lands on the new home, not on <body> where it
 * would be lost. Again at the next frame, for a commit that came after the microtask.
 */
export function rescueFocus(root?: Element | null): void {
  const rescue = (): void => {
    if (lost()) focusHome(root)?.focus({ preventScroll: false });
  };
  queueMicrotask(rescue);
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(rescue);
}

/**
 * At the next frame (once React has drawn what a click changed), focus to the view's home,
 * unless something has taken it since `from` had it: a shortcut pressed inside that frame
 * (Ctrl+K) opens the palette, and a late move would pull the focus out from under it, so
 * its Escape went to the view.
 */
export function focusHomeSoon(from: Element | null): void {
  const move = (): void => {
    if (document.activeElement === from || lost()) focusHome()?.focus();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(move);
  else move();
}

/**
 * When a dialog or the palette closes: focus back to the control that opened it, if it is
 * still there and nothing the dialog did has taken the focus since (a command that opened
 * a terminal focused it: giving the focus back would send the next keys to the old one);
 * else, if it is lost, to the view's home.
 */
export function returnFocus(opener: Element | null): void {
  if (!lost()) return;
  if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) {
    opener.focus();
  } else {
    rescueFocus();
  }
}

/** The window-wide half: focus lost by removal (not by a click elsewhere) is put back. */
export function keepFocus(): Disposable {
  let pointer = false;
  const onPointerDown = (): void => {
    pointer = true;
  };
  const onKeyDown = (): void => {
    pointer = false;
  };
  const onFocusOut = (event: FocusEvent): void => {
    if (event.relatedTarget !== null || pointer) return;
    rescueFocus();
  };
  document.addEventListener('pointerdown', onPointerDown, true);
  document.addEventListener('keydown', onKeyDown, true);
  document.addEventListener('focusout', onFocusOut);
  return {
    dispose: () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      document.removeEventListener('keydown', onKeyDown, true);
      document.removeEventListener('focusout', onFocusOut);
    },
  };
}
