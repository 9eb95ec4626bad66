// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { focusHomeSoon, rescueFocus } from './focus';

describe('rescueFocus', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  function view(): { old: HTMLButtonElement; home: HTMLButtonElement } {
    const main = document.createElement('main');
    const old = document.createElement('button');
    const first = document.createElement('button');
    const home = document.createElement('button');
    home.setAttribute('data-focus-home', '');
    main.append(old, first, home);
    document.body.append(main);
    old.focus();
    return { old, home };
  }

  it('puts lost focus on the home before the next task: no key pressed meanwhile is lost', async () => {
    const { old, home } = view();
    old.remove();
    rescueFocus();
    await Promise.resolve();
    expect(document.activeElement).toBe(home);
  });

  it('leaves focus that is not lost where it is', async () => {
    const { old } = view();
    rescueFocus();
    await Promise.resolve();
    expect(document.activeElement).toBe(old);
  });
});

describe('focusHomeSoon', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

  function shell(): {
    item: HTMLButtonElement;
    home: HTMLButtonElement;
    palette: HTMLInputElement;
  } {
    const nav = document.createElement('nav');
    const item = document.createElement('button');
    nav.append(item);
    const main = document.createElement('main');
    const home = document.createElement('button');
    home.setAttribute('data-focus-home', '');
    main.append(home);
    const palette = document.createElement('input');
    document.body.append(nav, main, palette);
    item.focus();
    return { item, home, palette };
  }

  it('moves the focus from the clicked item to the view at the next frame', async () => {
    const { item, home } = shell();
    focusHomeSoon(item);
    await frame();
    expect(document.activeElement).toBe(home);
  });

  it('leaves the focus where a key put it within that frame (the palette opened)', async () => {
    const { item, palette } = shell();
    focusHomeSoon(item);
    palette.focus();
    await frame();
    expect(document.activeElement).toBe(palette);
  });
});
