// @vitest-environment happy-dom
import { act, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import { createAppModel } from '../../app/model';
import { mountView, type MountedView } from '../../app/testing';
import { createInMemoryPorthole } from '../../platform';
import { FormActions } from '../Dialog';
import { DetailPane } from './DetailPane';
import { useStoredSelection, type TableSelection } from './selection';
import { TableView } from './TableView';

let mounted: MountedView | undefined;
afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
});

async function mount(view: ReactNode): Promise<HTMLElement> {
  const model = createAppModel(createInMemoryPorthole(fakeServices(), fakeEvents()));
  mounted = await mountView(model, view);
  return mounted.element;
}

function click(element: Element | null): void {
  if (!(element instanceof HTMLElement)) throw new Error('nothing to click');
  act(() => element.click());
}

const noSelection: TableSelection = { key: undefined, select: () => {}, close: () => {} };

describe('TableView', () => {
  it('puts the toolbar and banners above the table, the detail beside it by default', async () => {
    const element = await mount(
      <TableView<{ key: string }>
        className="things-view"
        toolbar={<div className="toolbar">filters</div>}
        banners={<div className="banner">node down</div>}
        label="Things"
        rows={[]}
        columns={[]}
        selection={noSelection}
        empty={<p>none</p>}
        detail={<aside className="detail">open row</aside>}
      />,
    );
    const view = element.querySelector('.view.things-view');
    expect([...(view?.children ?? [])].map((child) => child.className)).toEqual([
      'toolbar',
      'banner',
      'split',
    ]);
    expect(element.querySelector('.split > .split-main + .detail')?.textContent).toBe('open row');
    expect(element.querySelector('[role="grid"]')?.getAttribute('aria-label')).toBe('Things');
  });

  it('puts the detail under the table when asked', async () => {
    const element = await mount(
      <TableView<{ key: string }>
        toolbar={null}
        label="Things"
        rows={[]}
        columns={[]}
        selection={noSelection}
        empty={null}
        detail={<section>open row</section>}
        detailPlacement="below"
      />,
    );
    expect(element.querySelector('.view')?.className).toBe('view');
    expect(element.querySelector('.split.below > .split-main + section')).not.toBeNull();
  });
});

describe('DetailPane', () => {
  it('beside the table: kind, title and subtitle in its header, a splitter, and a close button', async () => {
    const onClose = vi.fn();
    const element = await mount(
      <DetailPane
        placement="side"
        label="Pod details"
        kind="Pod"
        title="web-1"
        subtitle="3m old"
        width={420}
        bounds={{ min: 300, max: 900 }}
        onResize={() => {}}
        onClose={onClose}
      >
        <p>body</p>
      </DetailPane>,
    );
    const pane = element.querySelector('aside[aria-label="Pod details"]');
    expect(pane?.querySelector('.detail-kind')?.textContent).toBe('Pod');
    expect(pane?.querySelector('h2')?.textContent).toBe('web-1');
    expect(pane?.querySelector('.detail-subtitle')?.textContent).toBe('3m old');
    // A variable the sheet reads: under the table in a narrow window, the pane is full width.
    expect((pane as HTMLElement | null)?.style.getPropertyValue('--detail-width')).toBe('420px');
    expect(element.querySelector('[role="separator"]')).not.toBeNull();
    click(pane?.querySelector('button[aria-label="Close details"]') ?? null);
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('under the table: title, state, reason and actions on one line, then the body', async () => {
    const onClose = vi.fn();
    const element = await mount(
      <DetailPane
        placement="below"
        className="forward-detail"
        label="Forward web"
        title="web"
        status={<span className="badge">active</span>}
        reason="Forwarding"
        actions={<button type="button">Stop</button>}
        onClose={onClose}
      >
        <p>body</p>
      </DetailPane>,
    );
    const pane = element.querySelector('section.bottom-detail.forward-detail');
    expect(pane?.getAttribute('aria-label')).toBe('Forward web');
    const header = pane?.querySelector('header');
    expect([...(header?.children ?? [])].map((child) => child.textContent)).toEqual([
      'web',
      'active',
      'Forwarding',
      'Stop',
      '',
    ]);
    expect(pane?.querySelector('header + p')?.textContent).toBe('body');
    click(header?.querySelector('button[aria-label="Close details"]') ?? null);
    expect(onClose).toHaveBeenCalledOnce();
  });
});

describe('useStoredSelection', () => {
  it('selects into the feature store and closes by clearing it', async () => {
    const store = createStore<{ selectedKey?: string; other: number }>(() => ({ other: 1 }));
    let selection: TableSelection | undefined;
    function Probe() {
      selection = useStoredSelection(store);
      return <span>{selection.key ?? 'none'}</span>;
    }
    const element = await mount(<Probe />);
    act(() => selection?.select('b'));
    expect(store.getState()).toEqual({ selectedKey: 'b', other: 1 });
    expect(element.textContent).toBe('b');
    act(() => selection?.close());
    expect(store.getState().selectedKey).toBeUndefined();
    expect(element.textContent).toBe('none');
  });
});

describe('FormActions', () => {
  it('ends with Cancel, the extra buttons, then the default action as the submit button', async () => {
    const onCancel = vi.fn();
    const element = await mount(
      <FormActions submitLabel="Save" onCancel={onCancel}>
        <button type="button">Save and connect</button>
      </FormActions>,
    );
    const buttons = [...element.querySelectorAll('button')];
    expect(buttons.map((button) => [button.textContent, button.type])).toEqual([
      ['Cancel', 'button'],
      ['Save and connect', 'button'],
      ['Save', 'submit'],
    ]);
    expect(buttons[2]?.className).toBe('btn btn-primary');
    expect(buttons[2]?.hasAttribute('data-autofocus')).toBe(false);
    click(buttons[0] ?? null);
    expect(onCancel).toHaveBeenCalledOnce();
  });

  it('shows a destructive action as such, with the focus, and its spinner while it runs', async () => {
    const element = await mount(
      <FormActions submitLabel="Stopping…" onCancel={() => {}} danger autofocus working disabled />,
    );
    const submit = element.querySelector('button[type="submit"]');
    expect(submit?.className).toBe('btn btn-danger');
    expect(submit?.hasAttribute('data-autofocus')).toBe(true);
    expect((submit as HTMLButtonElement | null)?.disabled).toBe(true);
    expect(submit?.querySelector('.spinner')).not.toBeNull();
  });

  it('opens a confirmation of something destructive on Cancel', async () => {
    const element = await mount(
      <FormActions submitLabel="Remove" onCancel={() => {}} danger autofocus="cancel" />,
    );
    const focused = [...element.querySelectorAll('[data-autofocus]')];
    expect(focused.map((button) => button.textContent)).toEqual(['Cancel']);
  });
});
