import type { Locator, Page } from 'playwright-core';

/** The session monitor: its filters, table, details and kill confirmation. */
export class SessionsPage {
  constructor(readonly page: Page) {}

  async go(): Promise<void> {
    await this.page
      .getByRole('navigation', { name: 'Porthole' })
      .getByRole('button', { name: /^Sessions/ })
      .click();
    await this.page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
  }

  get grid(): Locator {
    return this.page.getByRole('grid', { name: 'Sessions' });
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

  async filter(text: string): Promise<void> {
    await this.page.getByRole('searchbox', { name: 'Filter sessions by text' }).fill(text);
  }

  async kind(kind: string): Promise<void> {
    await this.page
      .getByRole('combobox', { name: 'Kind' })
      .selectOption(kind === '' ? { index: 0 } : kind);
  }

  get detail(): Locator {
    return this.page.getByRole('region', { name: 'Session details' });
  }
}
