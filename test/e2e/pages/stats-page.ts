import type { Locator, Page } from 'playwright-core';

/** The Stats screen: node and kind pickers, the CPU and memory charts, their legend. */
export class StatsPage {
  constructor(readonly page: Page) {}

  async go(): Promise<void> {
    await this.page
      .getByRole('navigation', { name: 'Porthole' })
      .getByRole('button', { name: /^Stats/ })
      .click();
    await this.heading.waitFor();
  }

  get heading(): Locator {
    return this.page.getByRole('heading', { level: 1, name: 'Stats' });
  }

  /** Picks the node whose stats are shown, by the start of its name. */
  async node(name: string): Promise<void> {
    const select = this.page.getByRole('toolbar', { name: 'Stats' }).getByLabel('Node');
    const options = await select.locator('option').allTextContents();
    const label = options.find((text) => text.startsWith(name));
    if (label === undefined) throw new Error(`No node "${name}" in ${options.join(', ')}`);
    await select.selectOption({ label });
  }

  async show(kind: 'Containers' | 'Pods'): Promise<void> {
    await this.page
      .getByRole('group', { name: 'Show' })
      .getByRole('button', { name: kind })
      .click();
  }

  /** A chart by its caption ("CPU (% of one core)", "Memory (working set)"). */
  chart(title: string | RegExp): Locator {
    return this.page.getByRole('figure', { name: title });
  }

  /** How many samples a chart was given (uPlot's x column). */
  async points(title: string | RegExp): Promise<number> {
    return Number(
      await this.chart(title).locator('.stats-chart-canvas').getAttribute('data-points'),
    );
  }

  get legend(): Locator {
    return this.page.locator('table.stats-legend');
  }

  /** The legend row of a container or pod, by its name. */
  row(name: string | RegExp): Locator {
    return this.legend
      .locator('tbody tr')
      .filter({ has: this.page.getByRole('rowheader', { name }) });
  }

  /** The CPU the legend shows for `name` (percent of one core), as a number. */
  async cpu(name: string | RegExp): Promise<number> {
    return percent(await this.row(name).locator('[data-metric="cpu"]').textContent());
  }

  async memory(name: string | RegExp): Promise<string> {
    return (await this.row(name).locator('[data-metric="memory"]').textContent()) ?? '';
  }

  /** Whether `name` is charted (its checkbox). */
  charted(name: string | RegExp): Locator {
    return this.row(name).getByRole('checkbox');
  }

  /** "Latest values" or "At 12:03:04". */
  get legendTime(): Locator {
    return this.legend.locator('.stats-legend-when');
  }

  async hoverChart(title: string | RegExp, fraction = 0.99): Promise<void> {
    const over = this.chart(title).locator('.u-over');
    const box = await over.boundingBox();
    if (box === null) throw new Error(`The chart "${String(title)}" is not on screen`);
    await this.page.mouse.move(box.x + box.width * fraction, box.y + box.height / 2);
  }
}

/** "97%" → 97; "—" → NaN. */
export function percent(text: string | null): number {
  const match = /^([\d.]+)%$/.exec((text ?? '').trim());
  return match === null ? Number.NaN : Number(match[1]);
}
