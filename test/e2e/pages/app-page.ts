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

  async go(view: ViewName): Promise<void> {
    await this.navLink(view).click();
    await this.page.getByRole('heading', { level: 1, name: view }).waitFor();
  }

  /** The top bar's node selector: a node's name, or `all` for every connected node. */
  async scope(node: string): Promise<void> {
    // In the top bar: the sidebar's "Node" section and the Stats toolbar's picker share the name.
    const select = this.page
      .getByRole('banner')
      .getByRole('combobox', { name: 'Node', exact: true });
    if (node === 'all') {
      await select.selectOption({ index: 0 });
      return;
    }
    const options = await select.locator('option').allTextContents();
    const label = options.find((text) => text.startsWith(node));
    if (label === undefined)
      throw new Error(`No node "${node}" in the selector: ${options.join(', ')}`);
    await select.selectOption({ label });
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
