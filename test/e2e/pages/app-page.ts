import type { Locator, Page } from 'playwright-core';

export type ViewName =
  | 'Nodes'
  | 'Pods'
  | 'Containers'
  | 'Images'
  | 'Terminals'
  | 'Port forwards'
  | 'Sessions'
  | 'Debug containers'
  | 'Files'
  | 'Logs'
  | 'Stats'
  | 'Run on many'
  | 'Timeline';

/** The shell: sidebar, node selector, command palette, notifications. */
export class AppPage {
  constructor(readonly page: Page) {}

  get sidebar(): Locator {
    return this.page.getByRole('navigation', { name: 'Porthole' });
  }

  navLink(view: ViewName): Locator {
    return this.sidebar.getByRole('button', { name: new RegExp(`^${view}`) });
  }

  /** The top bar's Menu button: there only in a window too narrow for the sidebar. */
  get menuButton(): Locator {
    return this.page.getByRole('banner').getByRole('button', { name: 'Menu', exact: true });
  }

  async go(view: ViewName): Promise<void> {
    // A narrow window keeps the sidebar behind the Menu button: open it first.
    const menu = this.menuButton;
    if ((await menu.count()) > 0 && (await menu.getAttribute('aria-expanded')) !== 'true') {
      await menu.click();
    }
    await this.navLink(view).click();
    await this.page.getByRole('heading', { level: 1, name: view }).waitFor();
  }

  /**
   * Picks in the top bar's node selector (a searchable combobox): a node's name, or `all`
   * for every connected node. Types the name, then chooses the option that starts with it.
   */
  async scope(node: string): Promise<void> {
    // In the top bar: the Stats toolbar's picker shares the name.
    const selector = this.page
      .getByRole('banner')
      .getByRole('combobox', { name: 'Node', exact: true });
    const list = this.page.getByRole('banner').getByRole('listbox', { name: 'Nodes' });
    await selector.fill(node === 'all' ? '' : node);
    const options = list.getByRole('option');
    await options.first().waitFor();
    if (node === 'all') {
      await options.filter({ hasText: /^All connected nodes/ }).click();
      return;
    }
    const texts = await options.allTextContents();
    const index = texts.findIndex((text) => text.startsWith(node));
    if (index < 0) throw new Error(`No node "${node}" in the selector: ${texts.join(', ')}`);
    await options.nth(index).click();
  }

  /** What has the focus: its role (or tag) and accessible name, or `body`. */
  focused(): Promise<string> {
    return this.page.evaluate(() => {
      const element = document.activeElement;
      if (element === null || element === document.body) return 'body';
      const name =
        element.getAttribute('aria-label') ??
        (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60);
      return `${element.getAttribute('role') ?? element.tagName.toLowerCase()}:${name}`;
    });
  }

  get notifications(): Locator {
    return this.page.getByRole('region', { name: 'Notifications' });
  }

  /** A toast by its title (success or error). */
  toast(title: string | RegExp): Locator {
    return this.notifications.locator('.toast').filter({ hasText: title });
  }

  async openPalette(): Promise<PalettePage> {
    await this.page.keyboard.press('Control+k');
    const palette = new PalettePage(this.page);
    await palette.input.waitFor();
    return palette;
  }

  /** The dialog on screen (confirmations, forms). */
  get dialog(): Locator {
    return this.page.getByRole('dialog');
  }
}

export class PalettePage {
  constructor(readonly page: Page) {}

  get input(): Locator {
    return this.page.getByRole('combobox', { name: 'Command' });
  }

  get options(): Locator {
    return this.page.getByRole('listbox', { name: 'Commands' }).getByRole('option');
  }

  async run(query: string): Promise<void> {
    await this.input.fill(query);
    await this.options.first().waitFor();
    await this.page.keyboard.press('Enter');
  }
}
