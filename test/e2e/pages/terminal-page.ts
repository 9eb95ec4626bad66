import type { Locator, Page } from 'playwright-core';

/**
 * The Terminals view: tabs, panes, and what a terminal shows. The text is read from
 * xterm's DOM rows (the DOM renderer draws every row as a div of spans), so the checks
 * see what a user sees, with no test hook in the app.
 */
export class TerminalPage {
  constructor(readonly page: Page) {}

  async go(): Promise<void> {
    await this.page
      .getByRole('navigation', { name: 'Porthole' })
      .getByRole('button', { name: /^Terminals/ })
      .click();
    await this.page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
  }

  get tabs(): Locator {
    return this.page.getByRole('tablist', { name: 'Terminal tabs' }).getByRole('tab');
  }

  /**
   * Closes every tab with the strip's "Close tab" button, which acts on the selected tab
   * (each tab's own close button is for the mouse and hidden from assistive technology).
   */
  async closeAllTabs(): Promise<void> {
    const close = this.page.getByRole('button', { name: 'Close tab', exact: true });
    while ((await this.tabs.count()) > 0) await close.click();
    await this.page.getByText('No terminals open').waitFor();
  }

  get selectedTab(): Locator {
    return this.page
      .getByRole('tablist', { name: 'Terminal tabs' })
      .locator('[aria-selected="true"]');
  }

  /** Terminal panes of the visible tab, in reading order. */
  get panes(): Locator {
    return this.page.locator('section.term-pane');
  }

  pane(index = 0): Locator {
    return this.panes.nth(index);
  }

  get activePane(): Locator {
    return this.page.locator('section.term-pane[data-active="true"]');
  }

  /** The rows on screen, trailing blanks trimmed. */
  async lines(pane: Locator): Promise<string[]> {
    const rows = await pane.locator('.xterm-rows > div').allTextContents();
    return rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd());
  }

  async screen(pane: Locator): Promise<string> {
    return (await this.lines(pane)).join('\n');
  }

  /** Waits until a row equals `line` (a string) or matches it (a RegExp). */
  async waitForLine(pane: Locator, line: string | RegExp, timeout = 20_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const lines = await this.lines(pane);
      if (lines.some((text) => (typeof line === 'string' ? text === line : line.test(text))))
        return;
      if (Date.now() - started > timeout) {
        throw new Error(
          `No line ${String(line)} in the terminal after ${timeout} ms:\n${lines.join('\n')}`,
        );
      }
      await this.page.waitForTimeout(50);
    }
  }

  /**
   * What the pane shows besides its rows, for a failure's message: the state dot, and the
   * text of a starting overlay, an ended banner or a notice, if there is one.
   */
  async describe(pane: Locator): Promise<string> {
    const state = await pane
      .locator('.term-dot')
      .first()
      .getAttribute('data-state', { timeout: 1000 })
      .catch(() => null);
    const shown = await pane
      .locator('.term-overlay, .term-ended, .term-notice')
      .allInnerTexts()
      .catch(() => []);
    return [`state ${state ?? 'none'}`, ...shown.map((text) => text.replace(/\s+/g, ' '))].join(
      '; ',
    );
  }

  /** Waits for an ash/bash prompt on the last non-empty row. */
  async waitForPrompt(pane: Locator, timeout = 20_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const lines = (await this.lines(pane)).filter((text) => text !== '');
      if (/[#$] ?$/.test(lines[lines.length - 1] ?? '')) return;
      if (Date.now() - started > timeout) {
        throw new Error(
          `No prompt after ${timeout} ms (${await this.describe(pane)}):\n${lines.join('\n')}`,
        );
      }
      await this.page.waitForTimeout(50);
    }
  }

  async focus(pane: Locator): Promise<void> {
    await pane.locator('.xterm-screen').click();
  }

  /** Types a command and Enter into a pane. */
  async run(pane: Locator, command: string): Promise<void> {
    await this.focus(pane);
    await this.page.keyboard.type(command);
    await this.page.keyboard.press('Enter');
  }

  /** The size the pane's header shows (xterm's cols × rows). */
  async size(pane: Locator): Promise<{ cols: number; rows: number }> {
    const size = pane.getByLabel('Terminal size');
    return {
      cols: Number(await size.getAttribute('data-cols')),
      rows: Number(await size.getAttribute('data-rows')),
    };
  }

  headerButton(pane: Locator, name: string | RegExp): Locator {
    return pane.locator('.term-pane-header').getByRole('button', { name });
  }

  /** Picks an entry of the pane's "More actions" menu. */
  async more(pane: Locator, item: string | RegExp): Promise<void> {
    await this.headerButton(pane, 'More actions').click();
    await this.page
      .getByRole('menu', { name: 'Terminal actions' })
      .getByRole('menuitem', { name: item })
      .click();
  }

  ended(pane: Locator): Locator {
    return pane.getByRole('status', { name: 'Session ended' });
  }
}
