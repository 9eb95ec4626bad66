/**
 * A fleet: the real core connected to 100 fake CRI nodes (test/fakes/cri-node.ts: real
 * gRPC servers on unix sockets, churning a container every few seconds) in processes of
 * their own (test/fakes/fleet.ts), so their work is not on the core's event loop, plus
 * three saved nodes whose sockets don't exist, served in browser mode to headless
 * Chromium. The node selector, the grouped node cards and the lists at that size, by
 * keyboard. Each test puts the views it uses in the state it needs, so it can run alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import type { Host } from '../../electron/core/host';
import { forkFleet, type ForkedFleet } from '../fakes/fleet';
import { AppPage } from './pages/app-page';
import { ResourcesPage } from './pages/resources-page';
import { screenshot } from './support/artifacts';
import { openApp, startBrowserHost, type OpenedApp } from './support/browser-app';
import { launchChromium } from './support/chromium';

/**
 * 100 nodes by default: enough for every part of the UI to be at fleet shape (virtualised
 * cards and options, grouped, 1,000 containers) in well under a minute on a loaded
 * two-core machine. `PORTHOLE_E2E_FLEET=500` for the issue's size.
 */
const fleetSize = Number(process.env.PORTHOLE_E2E_FLEET ?? '100');
/** 50 nodes per fake process, in at most 4 processes. */
const fleetProcesses = Math.min(4, Math.ceil(fleetSize / 50));
const podsPerNode = 5;
const containersPerNode = 10;
const broken = 3;

/** How many fleet nodes' names start with `prefix`. */
function named(prefix: string): number {
  return Array.from({ length: fleetSize }, (_, index) => `fleet-${index + 1}`).filter((name) =>
    name.startsWith(prefix),
  ).length;
}

describe(`Porthole with a fleet of ${fleetSize} nodes`, () => {
  let dir: string;
  let fleet: ForkedFleet;
  let core: Core;
  let host: Host;
  let browser: Browser;
  let opened: OpenedApp;
  let page: Page;
  let app: AppPage;

  beforeAll(async () => {
    // Every endpoint is under this directory and the node filter searches endpoints too, so
    // its name must not hold what the tests search for: 'porthole-e2e-fleet-' plus random
    // characters starting "42" made every node match 'fleet-42' (CI, stop 26).
    dir = mkdtempSync(join(tmpdir(), 'porthole-e2e-many-'));
    fleet = await forkFleet(
      {
        dir: join(dir, 'nodes'),
        count: fleetSize,
        pods: podsPerNode,
        containers: containersPerNode,
        images: 3,
        churnMs: [3000, 6000],
      },
      fleetProcesses,
    );
    const profiles = [
      ...fleet.endpoints.map((endpoint, index) => ({
        id: `fleet-${index + 1}`,
        kind: 'local',
        name: `fleet-${index + 1}`,
        endpoint,
      })),
      ...Array.from({ length: broken }, (_, index) => ({
        id: `gone-${index + 1}`,
        kind: 'local',
        name: `gone-${index + 1}`,
        endpoint: `unix://${join(dir, `gone-${index + 1}.sock`)}`,
      })),
    ];
    // Saved as a user's nodes.json would be: the test is about the UI, not the saves.
    const configDir = join(dir, 'config');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'nodes.json'), JSON.stringify({ version: 1, profiles }));
    core = createCore({
      configDir,
      logFile: false,
      env: { CRI_CONFIG_FILE: join(dir, 'none'), PORTHOLE_LAB_DIR: join(dir, 'no-lab') },
    });
    await Promise.all(
      profiles.map((profile) => core.services.nodes.connect(profile.id).catch(() => undefined)),
    );
    host = await startBrowserHost(core.services, core.events);
    browser = await launchChromium();
    opened = await openApp(browser, host, { width: 1440, height: 900 });
    page = opened.page;
    app = new AppPage(page);
  });

  afterEach(() => {
    expect(opened.pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await opened?.close();
    await browser?.close();
    await host?.close();
    core?.dispose();
    await fleet?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** The Nodes view unfiltered, grouped by state (the default), every group open. */
  async function nodesByState(): Promise<void> {
    await app.go('Nodes');
    await page.getByRole('searchbox', { name: 'Filter nodes' }).fill('');
    await page.getByRole('combobox', { name: 'Group nodes by' }).selectOption('state');
    const expand = page.getByRole('button', { name: 'Expand all' });
    if ((await expand.count()) > 0) await expand.click();
    await expect.poll(() => headings().first().textContent()).toBe(`Failed${broken} nodes`);
  }

  const headings = (): Locator => page.locator('.node-group-toggle');

  /**
   * Runs `steps` with every node's churn stopped: a restart is a removal and then a new
   * container, so under churn the count of containers is a moment's, seldom the total.
   */
  async function churnPaused(steps: () => Promise<void>): Promise<void> {
    fleet.pauseChurn();
    try {
      await steps();
    } finally {
      fleet.resumeChurn();
    }
  }

  it('groups the cards by state, failed first, and draws a screenful of them', async () => {
    await nodesByState();
    await expect
      .poll(() => page.locator('.toolbar-status').textContent())
      .toBe(`${fleetSize} of ${(fleetSize + broken).toLocaleString('en-US')} nodes connected`);
    // Virtualised: every node known, a few rows of cards in the DOM.
    expect(await page.getByRole('article').count()).toBeLessThan(40);
    await screenshot(page, '22-fleet-nodes');

    // Collapse the failed group from the keyboard: its heading is a disclosure button.
    const failed = page.getByRole('button', { name: /^Failed/ });
    await failed.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => failed.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => page.locator('article[data-state="failed"]').count()).toBe(0);
    const connected = page.getByRole('button', { name: /^Connected/ });
    await expect.poll(() => connected.textContent()).toBe(`Connected${fleetSize} nodes`);
    await screenshot(page, '22-fleet-nodes-collapsed');
    await page.keyboard.press('Space');
    await expect.poll(() => failed.getAttribute('aria-expanded')).toBe('true');
  });

  it('filters the cards, and groups them by local or SSH', async () => {
    await nodesByState();
    await page.getByRole('searchbox', { name: 'Filter nodes' }).fill('fleet-42');
    // fleet-42, and fleet-420…429 in a fleet that large.
    await expect.poll(() => page.getByRole('article').count()).toBe(named('fleet-42'));
    await expect
      .poll(() => page.locator('.toolbar-status').textContent())
      .toContain(`${named('fleet-42')} shown`);
    await page.getByRole('combobox', { name: 'Group nodes by' }).selectOption('kind');
    await expect
      .poll(() => page.locator('.node-group-toggle').allTextContents())
      .toEqual([`On this machine${named('fleet-42')} of ${fleetSize + broken} nodes`]);
    // Esc in the filter clears it.
    await page.getByRole('searchbox', { name: 'Filter nodes' }).press('Escape');
    await expect
      .poll(() => headings().allTextContents())
      .toEqual([`On this machine${fleetSize + broken} nodes`]);
  });

  it('finds a node by typing in the node selector, and shows its containers alone', async () => {
    await app.scope('all');
    const selector = page.getByRole('banner').getByRole('combobox', { name: 'Node', exact: true });
    await selector.focus();
    await page.keyboard.type('fleet-1');
    const list = page.getByRole('listbox', { name: 'Nodes' });
    // fleet-1, fleet-10…19, fleet-100…: names that start with what was typed, in numeric
    // order (the list is virtualised: a screenful of options at most).
    await expect
      .poll(() => list.getByRole('option').first().getAttribute('aria-setsize'))
      .toBe(String(named('fleet-1')));
    await expect
      .poll(() => page.getByRole('banner').getByRole('status').textContent())
      .toBe(`${named('fleet-1')} of ${(fleetSize + broken).toLocaleString('en-US')} nodes match`);
    await page.keyboard.press('ArrowDown');
    const active = page.locator(`[id="${await selector.getAttribute('aria-activedescendant')}"]`);
    await expect.poll(() => active.textContent()).toContain('fleet-10');
    await screenshot(page, '22-fleet-node-selector');
    await page.keyboard.press('Enter');
    await expect.poll(() => selector.inputValue()).toBe('fleet-10');
    await expect.poll(() => selector.getAttribute('aria-expanded')).toBe('false');

    await churnPaused(async () => {
      await app.go('Containers');
      const containers = new ResourcesPage(page, 'containers');
      await expect
        .poll(() => containers.count.textContent())
        .toBe(`${containersPerNode} containers`);
    });
    await app.scope('all');
    await expect.poll(() => selector.inputValue()).toBe(`All connected nodes (${fleetSize})`);
  });

  it('lists every node’s containers, virtualised, and filters the Node column', async () => {
    const containers = new ResourcesPage(page, 'containers');
    await app.scope('all');
    await churnPaused(async () => {
      await app.go('Containers');
      const total = fleetSize * containersPerNode;
      await expect
        .poll(() => containers.count.textContent())
        .toMatch(new RegExp(`^${total.toLocaleString('en-US')} containers$`));
      expect(await containers.rows.count()).toBeLessThan(80);
      const nodeFilter = page.getByRole('searchbox', { name: 'Filter by node name' });
      await nodeFilter.fill('fleet-7');
      // fleet-7, fleet-70…79: 11 nodes.
      await expect
        .poll(() => containers.count.textContent())
        .toBe(
          `${(11 * containersPerNode).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} containers`,
        );
      await screenshot(page, '22-fleet-containers-node-filter');
      await nodeFilter.fill('');
    });
  });

  it('moves a node that stops answering to its group, and the focus goes with its card', async () => {
    await nodesByState();
    const name = 'fleet-1';
    // Its card on screen (the list is virtualised: a card far below is not in the DOM).
    await page.getByRole('searchbox', { name: 'Filter nodes' }).fill(name);
    const card = page.getByRole('article', { name, exact: true });
    await expect.poll(() => card.getAttribute('data-state')).toBe('connected');
    const disconnect = card.getByRole('button', { name: 'Disconnect' });
    await disconnect.focus();
    fleet.freeze(0);
    try {
      // Not answering within seconds: its card moves from Connected to Reconnecting.
      await expect
        .poll(() => card.getAttribute('data-state'), { timeout: 20_000 })
        .toBe('reconnecting');
      // (Another node slow to answer on a loaded machine may be there too.)
      await expect
        .poll(() => headings().allTextContents())
        .toContainEqual(expect.stringMatching(/^Reconnecting\d+( of \d+)? nodes?$/));
      // The focus did not fall to the page: it is on the moved card.
      await expect
        .poll(() =>
          page.evaluate(
            () => document.activeElement?.closest('article')?.getAttribute('aria-label') ?? null,
          ),
        )
        .toBe(name);
      await screenshot(page, '22-fleet-not-answering');
    } finally {
      fleet.thaw(0);
    }
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 30_000 }).toBe('connected');
  });
});
