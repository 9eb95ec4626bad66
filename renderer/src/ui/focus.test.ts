// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { rescueFocus } from './focus';

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
