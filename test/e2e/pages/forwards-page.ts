import type { Locator, Page } from 'playwright-core';

/** The Port forwards screen: its table, bulk bar, details, and the create dialog. */
export class ForwardsPage {
  constructor(readonly page: Page) {}

  async go(): Promise<void> {
    await this.page
      .getByRole('navigation', { name: 'Porthole' })
      .getByRole('button', { name: /^Port forwards/ })
      .click();
    await this.heading.waitFor();
  }

  get heading(): Locator {
    return this.page.getByRole('heading', { level: 1, name: 'Port forwards' });
  }

  get grid(): Locator {
    return this.page.getByRole('grid', { name: 'Port forwards' });
  }

  get rows(): Locator {
    return this.grid.locator('[role="row"][data-key]');
  }

  row(text: string | RegExp): Locator {
    return this.rows.filter({ hasText: text });
  }

  /** A row's cell by its column header (the columns that fit the window). */
  async cell(row: Locator, header: string): Promise<Locator> {
    const headers = await this.grid.getByRole('columnheader').allTextContents();
    const index = headers.indexOf(header);
    if (index < 0) throw new Error(`No column "${header}" in ${headers.join(', ')}`);
    return row.getByRole('gridcell').nth(index);
  }

  /** The local URL link of a row (the first port's). */
  link(text: string | RegExp): Locator {
    return this.row(text).locator('.forward-link a').first();
  }

  async selectAll(): Promise<void> {
    await this.page.getByRole('checkbox', { name: 'Select all forwards' }).check();
  }

  bulk(action: 'Start' | 'Stop' | 'Restart' | 'Remove'): Locator {
    return this.page
      .getByRole('group', { name: 'Selected forwards' })
      .getByRole('button', { name: action, exact: true });
  }

  detail(name: string | RegExp): Locator {
    return this.page.getByRole('region', { name });
  }
}

/** "Forward a port of <pod>": declared ports, port rows, listen address, options. */
export class ForwardDialogPage {
  constructor(readonly page: Page) {}

  get dialog(): Locator {
    return this.page.getByRole('dialog', { name: /Forward a port of|New port forward/ });
  }

  declared(port: number): Locator {
    return this.dialog
      .getByRole('group', { name: 'Declared ports' })
      .getByRole('button', { name: `${port}/TCP` });
  }

  get podPort(): Locator {
    return this.dialog.getByLabel('Pod port').first();
  }

  get localPort(): Locator {
    return this.dialog.getByLabel('Local port').first();
  }

  listenOn(label: RegExp): Locator {
    return this.dialog.getByRole('radiogroup', { name: 'Listen on' }).getByLabel(label);
  }

  async start(): Promise<void> {
    await this.dialog.getByRole('button', { name: 'Start forward' }).click();
  }
}
