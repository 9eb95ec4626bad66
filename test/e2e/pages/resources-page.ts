import type { Locator, Page } from 'playwright-core';

export type ResourceKind = 'pods' | 'containers' | 'images';

const titles: Record<ResourceKind, { table: string; detail: string }> = {
  pods: { table: 'Pods', detail: 'Pod details' },
  containers: { table: 'Containers', detail: 'Container details' },
  images: { table: 'Images', detail: 'Image details' },
};

/** A resource table with its filters and detail pane. */
export class ResourcesPage {
  constructor(
    readonly page: Page,
    readonly kind: ResourceKind,
  ) {}

  get grid(): Locator {
    return this.page.getByRole('grid', { name: titles[this.kind].table });
  }

  /** Body rows (the header row has no key). */
  get rows(): Locator {
    return this.grid.locator('[role="row"][data-key]');
  }

  row(text: string | RegExp): Locator {
    return this.rows.filter({ hasText: text });
  }

  get filterInput(): Locator {
    return this.page.getByRole('searchbox', { name: `Filter ${this.kind} by text` });
  }

  async filter(text: string): Promise<void> {
    await this.filterInput.fill(text);
  }

  /** Clears every filter (text, labels, state, a pod's containers), if one is set. */
  async clearFilters(): Promise<void> {
    const clear = this.page.locator('.toolbar').getByRole('button', { name: 'Clear', exact: true });
    if ((await clear.count()) > 0) await clear.click();
    await this.page.locator('.toolbar .chip').waitFor({ state: 'detached' });
  }

  async labels(selector: string): Promise<void> {
    await this.page.getByRole('textbox', { name: 'Label selector' }).fill(selector);
  }

  async state(state: string): Promise<void> {
    await this.page
      .getByRole('combobox', { name: 'State' })
      .selectOption(state === '' ? { index: 0 } : state);
  }

  /** "3 of 12 pods" / "12 pods". */
  get count(): Locator {
    return this.page.locator('.toolbar-status');
  }

  async select(text: string | RegExp): Promise<void> {
    await this.row(text).first().click();
  }

  /** Selects the row and opens its details with Enter, as a keyboard user would. */
  async open(text: string | RegExp): Promise<Locator> {
    await this.select(text);
    await this.page.keyboard.press('Enter');
    await this.detail.waitFor();
    return this.detail;
  }

  get detail(): Locator {
    return this.page.getByRole('complementary', { name: titles[this.kind].detail });
  }

  detailSection(title: string | RegExp): Locator {
    return this.detail.getByRole('region', { name: title });
  }

  detailAction(name: string | RegExp): Locator {
    return this.detail.locator('.detail-actions').getByRole('button', { name });
  }

  /** From the open container's details to its Logs view. */
  async openLogs(): Promise<void> {
    await this.detailAction(/^Logs$/).click();
    await this.page.getByRole('heading', { level: 1, name: 'Logs' }).waitFor();
  }

  /** From the open container's details to its Files view, once the root's first row is in. */
  async openFiles(): Promise<Locator> {
    await this.detailAction(/^Files$/).click();
    await this.page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
    const grid = this.page.getByRole('grid', { name: 'Files in /' });
    await grid.locator('[role="row"][data-key]').first().waitFor({ timeout: 20_000 });
    return grid;
  }
}
