import type { Locator, Page } from 'playwright-core';

export interface NodeForm {
  readonly name: string;
  readonly endpoint: string;
  readonly timeoutSeconds?: string;
  readonly autoConnect?: boolean;
}

/** The Nodes screen: one card per saved or discovered node. */
export class NodesPage {
  constructor(readonly page: Page) {}

  card(name: string | RegExp): Locator {
    return this.page.getByRole('article', { name });
  }

  state(name: string | RegExp): Locator {
    return this.card(name).locator('.node-card-header .badge').last();
  }

  async connect(name: string | RegExp): Promise<void> {
    await this.card(name)
      .getByRole('button', { name: /^(Connect|Retry)$/ })
      .click();
  }

  async waitConnected(name: string | RegExp): Promise<void> {
    await this.card(name).getByRole('button', { name: 'Disconnect' }).waitFor({ timeout: 30_000 });
  }

  async disconnect(name: string | RegExp): Promise<void> {
    await this.card(name).getByRole('button', { name: 'Disconnect' }).click();
  }

  /** The error shown on a card: message, hint and details. */
  error(name: string | RegExp): Locator {
    return this.card(name).getByRole('alert');
  }

  async addNode(form: NodeForm, connect = false): Promise<void> {
    await this.page.getByRole('button', { name: 'Add node' }).first().click();
    const dialog = this.page.getByRole('dialog', { name: 'Add a node' });
    await dialog.getByLabel('Name').fill(form.name);
    await dialog.getByLabel('Runtime endpoint').fill(form.endpoint);
    if (form.timeoutSeconds !== undefined) {
      await dialog.getByLabel('Call timeout (seconds)').fill(form.timeoutSeconds);
    }
    if (form.autoConnect === true) await dialog.getByLabel('Connect when Porthole starts').check();
    await dialog
      .getByRole('button', { name: connect ? 'Save and connect' : 'Save', exact: true })
      .click();
  }
}
