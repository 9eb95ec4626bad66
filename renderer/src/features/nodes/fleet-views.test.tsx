// @vitest-environment happy-dom
/**
 * The node selector and the Nodes view with 500 nodes: what is in the DOM, what the
 * keyboard does, what ARIA says. happy-dom lays nothing out, so the scrolling elements
 * are given a size (what the virtualisers read) for these tests.
 */
import { act } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import { toDisposable } from '../../../../shared/lifecycle';
import type { EventSink } from '../../../../shared/contract';
import { nodesReset, type NodesDelta, type NodeStatus } from '../../../../shared/model';
import { createAppModel, type AppModel } from '../../app/model';
import { mountView, type MountedView } from '../../app/testing';
import { createInMemoryPorthole } from '../../platform';
import { NodeScopePicker } from './NodeScopePicker';
import { nodeListOf } from './node-list-store';
import { NodesView } from './NodesView';

const size = { clientHeight: 720, clientWidth: 1400 } as const;
const descriptors = new Map<string, PropertyDescriptor | undefined>();
/** What the card list measures: a heading 40px high, a row of cards 300px. */
function rowHeight(this: HTMLElement): number {
  if (!this.classList.contains('node-list-row')) return 0;
  return this.querySelector('.node-group-heading') === null ? 300 : 40;
}
const overrides: Readonly<Record<string, PropertyDescriptor>> = {
  ...Object.fromEntries(
    Object.entries(size).map(([name, value]) => [name, { configurable: true, get: () => value }]),
  ),
  offsetHeight: { configurable: true, get: rowHeight },
};
beforeAll(() => {
  for (const [name, descriptor] of Object.entries(overrides)) {
    descriptors.set(name, Object.getOwnPropertyDescriptor(HTMLElement.prototype, name));
    Object.defineProperty(HTMLElement.prototype, name, descriptor);
  }
});
afterAll(() => {
  for (const [name, descriptor] of descriptors) {
    if (descriptor === undefined) Reflect.deleteProperty(HTMLElement.prototype, name);
    else Object.defineProperty(HTMLElement.prototype, name, descriptor);
  }
});

let mounted: MountedView | undefined;
afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
});

function fleet(count: number): NodeStatus[] {
  return Array.from({ length: count }, (_, index) => ({
    nodeId: `node-${index + 1}`,
    name: `worker-${index + 1}`,
    kind: index % 10 === 9 ? ('ssh' as const) : ('local' as const),
    endpoint: `unix:///run/worker-${index + 1}/containerd.sock`,
    origin: 'saved' as const,
    state: index % 25 === 24 ? ('failed' as const) : ('connected' as const),
  }));
}

/** A model fed 500 nodes, and a way to send the next `nodes` event. */
async function fleetModel(): Promise<{ model: AppModel; send: (delta: NodesDelta) => void }> {
  let sink: EventSink<NodesDelta> | undefined;
  const events = fakeEvents({
    nodes: (_argument, next) => {
      sink = next;
      next.next(nodesReset(fleet(500)));
      return toDisposable(() => undefined);
    },
  });
  const services = fakeServices({
    nodes: { discover: () => Promise.resolve({ endpoints: [], warnings: [], sources: [] }) },
  });
  const model = createAppModel(createInMemoryPorthole(services, events), {
    schedule: (run) => queueMicrotask(run),
  });
  await vi.waitFor(() => expect(model.nodes.getState().loaded).toBe(true));
  return { model, send: (delta) => sink?.next(delta) };
}

async function type(input: HTMLInputElement, text: string): Promise<void> {
  await act(async () => {
    Reflect.set(HTMLInputElement.prototype, 'value', text, input);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await Promise.resolve();
  });
}

async function press(target: HTMLElement, key: string): Promise<void> {
  await act(async () => {
    target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    await Promise.resolve();
  });
}

function options(element: HTMLElement): HTMLElement[] {
  return [...element.querySelectorAll<HTMLElement>('[role="option"]')];
}

describe('the node selector with 500 nodes', () => {
  it('narrows as you type, moves with the arrows and chooses with Enter', async () => {
    const { model } = await fleetModel();
    mounted = await mountView(model, <NodeScopePicker id="scope" />);
    const input = mounted.element.querySelector<HTMLInputElement>('#scope');
    if (input === null) throw new Error('no input');
    expect(input.getAttribute('role')).toBe('combobox');
    expect(input.getAttribute('aria-expanded')).toBe('false');
    expect(input.value).toBe('All connected nodes (480)');
    const list = document.getElementById(input.getAttribute('aria-controls') ?? '');
    expect(list?.getAttribute('role')).toBe('listbox');

    await act(async () => {
      input.focus();
      await Promise.resolve();
    });
    await press(input, 'ArrowDown');
    expect(input.getAttribute('aria-expanded')).toBe('true');
    // Virtualised: a screenful of the 501 options, each knowing its place in all of them.
    const shown = options(mounted.element);
    expect(shown.length).toBeGreaterThan(5);
    expect(shown.length).toBeLessThan(40);
    expect(shown[0]?.getAttribute('aria-setsize')).toBe('501');
    expect(shown[0]?.textContent).toContain('All connected nodes');
    // The active option is the current choice, and aria-activedescendant names it.
    expect(input.getAttribute('aria-activedescendant')).toBe(shown[0]?.id);
    expect(shown[0]?.getAttribute('aria-selected')).toBe('true');

    await type(input, 'worker-42');
    const found = options(mounted.element);
    expect(found.map((option) => option.textContent)).toEqual(
      expect.arrayContaining([expect.stringContaining('worker-42')]),
    );
    expect(found[0]?.getAttribute('aria-setsize')).toBe('11');
    expect(mounted.element.querySelector('[role="status"]')?.textContent).toBe(
      '11 of 500 nodes match',
    );
    await press(input, 'ArrowDown');
    const active = document.getElementById(input.getAttribute('aria-activedescendant') ?? '');
    expect(active?.textContent).toContain('worker-420');
    expect(active?.getAttribute('aria-posinset')).toBe('2');
    await press(input, 'Enter');
    expect(model.nodes.getState().scope).toEqual({ kind: 'node', nodeId: 'node-420' });
    expect(input.getAttribute('aria-expanded')).toBe('false');
    expect(input.value).toBe('worker-420');
  });

  it('keeps the choice on Esc, and says when nothing matches', async () => {
    const { model } = await fleetModel();
    mounted = await mountView(model, <NodeScopePicker id="scope" />);
    const input = mounted.element.querySelector<HTMLInputElement>('#scope');
    if (input === null) throw new Error('no input');
    await type(input, 'no-such-node');
    expect(options(mounted.element)).toHaveLength(0);
    expect(input.getAttribute('aria-activedescendant')).toBeNull();
    expect(mounted.element.querySelector('[role="status"]')?.textContent).toBe(
      'No node matches “no-such-node”',
    );
    await press(input, 'Enter');
    expect(model.nodes.getState().scope).toEqual({ kind: 'all' });
    await press(input, 'Escape');
    expect(input.getAttribute('aria-expanded')).toBe('false');
    expect(input.value).toBe('All connected nodes (480)');
  });

  it('names a node that is not connected by its state, and pages down to the last node', async () => {
    const { model } = await fleetModel();
    model.nodes.getState().setScope({ kind: 'node', nodeId: 'node-475' });
    mounted = await mountView(model, <NodeScopePicker id="scope" />);
    const input = mounted.element.querySelector<HTMLInputElement>('#scope');
    if (input === null) throw new Error('no input');
    expect(input.value).toBe('worker-475 (failed)');
    await press(input, 'ArrowDown');
    // Opens on the current choice (option 476: "all", then worker-1…), scrolled to it.
    const active = document.getElementById(input.getAttribute('aria-activedescendant') ?? '');
    expect(active?.getAttribute('aria-posinset')).toBe('476');
    for (let page = 0; page < 5; page += 1) await press(input, 'PageDown');
    const last = document.getElementById(input.getAttribute('aria-activedescendant') ?? '');
    expect(last?.getAttribute('aria-posinset')).toBe('501');
    expect(last?.textContent).toContain('worker-500');
  });
});

describe('the Nodes view with 500 nodes', () => {
  it('draws a screenful of cards in groups, collapses a group, and filters', async () => {
    const { model, send } = await fleetModel();
    mounted = await mountView(model, <NodesView />, { width: '1400px', height: '720px' });
    const root = mounted.element;
    const headings = (): string[] =>
      [...root.querySelectorAll('.node-group-toggle')].map((b) => b.textContent);
    // The next heading is rows of cards away: not in the DOM yet.
    expect(headings()).toEqual(['Failed20 nodes']);
    const cards = root.querySelectorAll('article.node-card');
    expect(cards.length).toBeGreaterThan(0);
    // Not 500 cards' worth of DOM: a few rows of three.
    expect(cards.length).toBeLessThan(40);
    expect(root.querySelector('.toolbar-status')?.textContent).toBe('480 of 500 nodes connected');

    const failed = root.querySelector<HTMLButtonElement>('.node-group-toggle');
    expect(failed?.getAttribute('aria-expanded')).toBe('true');
    await act(async () => {
      failed?.click();
      await Promise.resolve();
    });
    expect(failed?.getAttribute('aria-expanded')).toBe('false');
    expect(root.querySelector('article.node-card[data-state="failed"]')).toBeNull();
    expect(headings()).toEqual(['Failed20 nodes', 'Connected480 nodes']);

    // A reset (a resubscription), one node changed: the store keeps the other 499
    // objects, so their (memoised) cards and rows don't render; the DOM stays.
    const before = model.nodes.getState().nodes;
    const second = root.querySelector('article.node-card[aria-label="worker-2"]');
    await act(async () => {
      send(
        nodesReset(
          fleet(500).map((node) => (node.nodeId === 'node-1' ? { ...node, name: 'w-1' } : node)),
        ),
      );
      await Promise.resolve();
    });
    const after = model.nodes.getState().nodes;
    expect(after.filter((node, index) => node !== before[index]).map((n) => n.name)).toEqual([
      'w-1',
    ]);
    expect(root.querySelector('article.node-card[aria-label="worker-2"]')).toBe(second);
    expect(root.querySelector('article.node-card[aria-label="w-1"]')).not.toBeNull();
    // A delta: that node alone.
    const worker3 = after[2];
    if (worker3 === undefined) throw new Error('no worker-3');
    await act(async () => {
      send({ reset: false, upserted: [{ ...worker3, name: 'w-3' }], removed: [] });
      await Promise.resolve();
    });
    expect(root.querySelector('article.node-card[aria-label="worker-2"]')).toBe(second);
    expect(root.querySelector('article.node-card[aria-label="w-3"]')).not.toBeNull();

    const filter = root.querySelector<HTMLInputElement>('input[aria-label="Filter nodes"]');
    if (filter === null) throw new Error('no filter');
    await type(filter, 'ssh');
    expect(headings()).toEqual(['Failed10 of 20 nodes', 'Connected40 of 480 nodes']);
    expect(root.querySelector('.toolbar-status')?.textContent).toBe(
      '50 shown · 480 of 500 nodes connected',
    );
    await type(filter, 'nowhere');
    expect(root.textContent).toContain('No node matches');
  });

  it('groups by local or SSH on request, and every group collapses at once', async () => {
    const { model } = await fleetModel();
    mounted = await mountView(model, <NodesView />, { width: '1400px', height: '720px' });
    const root = mounted.element;
    const grouping = root.querySelector<HTMLSelectElement>('select[aria-label="Group nodes by"]');
    if (grouping === null) throw new Error('no grouping');
    await act(async () => {
      grouping.value = 'kind';
      grouping.dispatchEvent(new Event('change', { bubbles: true }));
      await Promise.resolve();
    });
    const headings = (): string[] =>
      [...root.querySelectorAll('.node-group-toggle')].map((b) => b.textContent);
    expect(headings()).toEqual(['On this machine450 nodes']);
    const collapseAll = [...root.querySelectorAll('button')].find(
      (button) => button.textContent === 'Collapse all',
    );
    await act(async () => {
      collapseAll?.click();
      await Promise.resolve();
    });
    expect(root.querySelectorAll('article.node-card')).toHaveLength(0);
    expect(headings()).toEqual(['On this machine450 nodes', 'Over SSH50 nodes']);
    expect(
      [...root.querySelectorAll('.node-group-toggle')].map((b) => b.getAttribute('aria-expanded')),
    ).toEqual(['false', 'false']);
  });

  it('brings a node just added on screen and focuses it, out of a filter and a collapsed group', async () => {
    const { model, send } = await fleetModel();
    mounted = await mountView(model, <NodesView />, { width: '1400px', height: '720px' });
    const root = mounted.element;
    const filter = root.querySelector<HTMLInputElement>('input[aria-label="Filter nodes"]');
    if (filter === null) throw new Error('no filter');
    await type(filter, 'ssh');
    const list = nodeListOf(model).store;
    await act(async () => {
      list.getState().toggle('state:connected');
      await Promise.resolve();
    });
    expect(list.getState().collapsed.has('state:connected')).toBe(true);
    // Saving asks for the reveal before the node's delta comes: the list waits for it.
    await act(async () => {
      list.getState().reveal('node-501');
      await Promise.resolve();
    });
    expect(root.querySelector('article.node-card[aria-label="worker-501"]')).toBeNull();
    await act(async () => {
      send({
        reset: false,
        upserted: [{ ...fleet(1)[0]!, nodeId: 'node-501', name: 'worker-501' }],
        removed: [],
      });
      await Promise.resolve();
    });
    await vi.waitFor(() =>
      expect(document.activeElement?.getAttribute('aria-label')).toBe('worker-501'),
    );
    expect(filter.value).toBe('');
    expect(list.getState().collapsed.has('state:connected')).toBe(false);
    expect(list.getState().revealing).toBeUndefined();
  });
});
