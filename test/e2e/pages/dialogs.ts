import type { Locator, Page } from 'playwright-core';

/**
 * "Stop container web?" and friends: a destructive one opens on Cancel, so Tab then Enter
 * confirms (Enter alone when it is not destructive); Esc cancels.
 */
export class ConfirmDialog {
  constructor(readonly page: Page) {}

  get dialog(): Locator {
    return this.page.getByRole('dialog');
  }

  async confirm(): Promise<void> {
    await this.dialog.waitFor();
    if (
      await this.dialog
        .getByRole('button', { name: 'Cancel' })
        .evaluate((b) => b === document.activeElement)
    )
      await this.page.keyboard.press('Tab');
    await this.page.keyboard.press('Enter');
    await this.dialog.waitFor({ state: 'detached' });
  }

  async cancel(): Promise<void> {
    await this.dialog.waitFor();
    await this.page.keyboard.press('Escape');
    await this.dialog.waitFor({ state: 'detached' });
  }
}

/** "Run a pod from a spec": a CodeMirror editor with inline validation. */
export class RunSpecDialog {
  constructor(readonly page: Page) {}

  get dialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Run a pod from a spec' });
  }

  get editor(): Locator {
    return this.dialog.getByRole('textbox', { name: 'Pod spec (YAML or JSON)' });
  }

  get problems(): Locator {
    return this.dialog.getByRole('list', { name: 'Problems in the spec' }).getByRole('listitem');
  }

  get status(): Locator {
    return this.dialog.locator('.spec-status');
  }

  /** The editor's text, line by line as CodeMirror shows it. */
  async text(): Promise<string> {
    return (await this.dialog.locator('.cm-content .cm-line').allTextContents()).join('\n');
  }

  async open(): Promise<void> {
    // The toolbar's; an empty pods view offers a second one.
    await this.page.getByRole('button', { name: 'Run pod…' }).first().click();
    await this.editor.waitFor();
    // CodeMirror replaces the plain editor once loaded: wait for it.
    await this.dialog.locator('.cm-editor').waitFor();
  }

  async replaceText(text: string): Promise<void> {
    await this.dialog.locator('.cm-content').click();
    await this.page.keyboard.press('Control+a');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
  }

  async run(): Promise<void> {
    await this.dialog.getByRole('button', { name: 'Run', exact: true }).click();
  }
}
