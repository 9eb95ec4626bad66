import type { Locator, Page } from 'playwright-core';

/** The Logs screen: the container and how it is read, the lines, the search. */
export class LogsPage {
  constructor(readonly page: Page) {}

  async go(): Promise<void> {
    await this.page
      .getByRole('navigation', { name: 'Porthole' })
      .getByRole('button', { name: /^Logs/ })
      .click();
    await this.heading.waitFor();
  }

  get heading(): Locator {
    return this.page.getByRole('heading', { level: 1, name: 'Logs' });
  }

  get container(): Locator {
    return this.page.getByRole('combobox', { name: 'Container' });
  }

  get streams(): Locator {
    return this.page.getByRole('combobox', { name: 'Streams' });
  }

  get list(): Locator {
    return this.page.getByRole('list', { name: 'Log lines' });
  }

  /** The lines on screen (fetched ones; placeholders have no text). */
  get lines(): Locator {
    return this.list.locator('.log-line:not(.loading)');
  }

  /** The texts of the lines on screen, top to bottom. */
  async texts(): Promise<string[]> {
    const items = await this.list.locator('.log-line:not(.loading)').evaluateAll((elements) =>
      elements
        .map((element) => ({
          index: Number((element as HTMLElement).dataset.index),
          text: element.querySelector('.log-text')?.textContent ?? '',
        }))
        .sort((a, b) => a.index - b.index),
    );
    return items.map((item) => item.text);
  }

  /** A merged log's lines on screen, top to bottom: container, time as written, text. */
  async mergedLines(): Promise<{ source: string; timeText: string; text: string }[]> {
    const items = await this.list.locator('.log-line:not(.loading)').evaluateAll((elements) =>
      elements
        .map((element) => ({
          index: Number((element as HTMLElement).dataset.index),
          source: element.querySelector('.log-source')?.textContent ?? '',
          timeText: element.querySelector('.log-time')?.getAttribute('title') ?? '',
          text: element.querySelector('.log-text')?.textContent ?? '',
        }))
        .sort((a, b) => a.index - b.index),
    );
    return items.map(({ source, timeText, text }) => ({ source, timeText, text }));
  }

  /** A merged log's container toggles. */
  get sources(): Locator {
    return this.page.getByRole('group', { name: 'Containers shown' });
  }

  source(name: string): Locator {
    return this.sources.getByRole('button', { name, exact: true });
  }

  get searchInput(): Locator {
    return this.page.getByRole('searchbox', { name: 'Search the log' });
  }

  /** "3 of 120", "No matches". */
  get searchStatus(): Locator {
    return this.page.locator('.log-search-status');
  }

  /** Highlighted matches on screen. */
  get marks(): Locator {
    return this.list.locator('mark.log-mark');
  }

  get currentMatch(): Locator {
    return this.list.locator('.log-line.current');
  }

  get status(): Locator {
    return this.page.locator('.log-status');
  }

  button(name: string | RegExp): Locator {
    return this.page.getByRole('button', { name });
  }

  get problem(): Locator {
    return this.page.locator('.logs-view [role="alert"]');
  }
}
