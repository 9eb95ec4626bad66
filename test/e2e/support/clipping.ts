/**
 * Finds text a user can't read in full: in table cells, table headers and toolbars, an
 * element whose text is cut off (ellipsis or plain overflow), or a select whose chosen
 * option is wider than the select, with no tooltip (`title`) on it, around it inside its
 * cell, or on what it contains. Runs in the page; measures what Chromium laid out.
 */
import type { Page } from 'playwright-core';

export interface ClippedText {
  /** Where: the table's or toolbar's accessible name, and the column header. */
  readonly where: string;
  readonly text: string;
  /** How much is hidden, in pixels. */
  readonly hiddenPx: number;
  /** The element, for whoever has to fix it. */
  readonly html: string;
}

export function findClippedText(page: Page): Promise<ClippedText[]> {
  return page.evaluate(() => {
    const roots = document.querySelectorAll<HTMLElement>(
      '[role="gridcell"], [role="columnheader"], .toolbar, table td, table th',
    );
    const found: { where: string; text: string; hiddenPx: number; html: string }[] = [];

    const visible = (element: Element): boolean => {
      const box = element.getBoundingClientRect();
      // Visually hidden text (for screen readers) is a 1 px box on purpose.
      if (box.width <= 1 || box.height <= 1) return false;
      const style = getComputedStyle(element);
      return style.visibility !== 'hidden' && style.display !== 'none';
    };
    const titled = (element: Element, root: Element): boolean => {
      for (let at: Element | null = element; at !== null; at = at.parentElement) {
        if ((at.getAttribute('title') ?? '') !== '') return true;
        if (at === root) break;
      }
      // A cell's tooltip may sit on what it holds; a toolbar that cuts off its own
      // content has no single tooltip that could say what is missing.
      if (element === root && root.classList.contains('toolbar')) return false;
      return element.querySelector('[title]:not([title=""])') !== null;
    };
    const describe = (root: Element): string => {
      const table = root.closest('[role="grid"], table');
      if (table !== null) {
        const name = table.getAttribute('aria-label') ?? 'table';
        const row = root.parentElement;
        const index = row === null ? -1 : [...row.children].indexOf(root);
        const header = table.querySelectorAll('[role="columnheader"], thead th')[index];
        return `${name} › ${header?.textContent?.trim() || `column ${index + 1}`}`;
      }
      const toolbar = root.closest('.toolbar');
      return `toolbar ${toolbar?.getAttribute('aria-label') ?? ''}`.trim();
    };
    const seen = new Set<Element>();

    for (const root of roots) {
      if (!visible(root)) continue;
      for (const element of [root, ...root.querySelectorAll('*')]) {
        if (seen.has(element) || element.closest('svg') !== null || !visible(element)) continue;
        seen.add(element);
        let hidden = 0;
        let text = '';
        if (element instanceof HTMLSelectElement) {
          // The width the select would take for its chosen option alone: a copy holding
          // only that option, laid out beside it with the same styles, at its natural width.
          const option = element.selectedOptions[0];
          if (option === undefined) continue;
          text = option.text;
          const copy = element.cloneNode(false) as HTMLSelectElement;
          copy.append(option.cloneNode(true));
          copy.removeAttribute('id');
          Object.assign(copy.style, {
            position: 'absolute',
            visibility: 'hidden',
            width: 'auto',
            minWidth: '0',
            maxWidth: 'none',
            flex: 'none',
          });
          element.after(copy);
          hidden = copy.getBoundingClientRect().width - element.getBoundingClientRect().width;
          copy.remove();
        } else if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
          continue;
        } else {
          const style = getComputedStyle(element);
          if (style.overflowX === 'visible') continue;
          text = (element.textContent ?? '').trim();
          if (text === '') continue;
          hidden = element.scrollWidth - element.clientWidth;
        }
        if (hidden > 1 && !titled(element, root)) {
          found.push({
            where: describe(root),
            text,
            hiddenPx: Math.round(hidden),
            html: element.outerHTML.slice(0, 300),
          });
        }
      }
    }
    return found;
  });
}
