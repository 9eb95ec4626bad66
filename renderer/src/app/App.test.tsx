// @vitest-environment happy-dom
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeCore, type FakeCore } from '../../../test/e2e/fixtures/fake-core';
import { confirmRemoveContainer } from '../features/resources/actions';
import { deriveRows } from '../features/resources/use-rows';
import { createInMemoryPorthole } from '../platform';
import { App } from './App';
import { createAppModel, type AppModel } from './model';
import { mountView } from './testing';

interface Rendered {
  readonly model: AppModel;
  readonly root: HTMLElement;
  text(): string;
}

let cleanup: (() => void) | undefined;

afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

async function renderApp(core: FakeCore, initialView = 'nodes'): Promise<Rendered> {
  const model = createAppModel(createInMemoryPorthole(core.services, core.events), {
    initialView,
    schedule: (flush) => queueMicrotask(flush),
  });
  const { element, unmount } = await mountView(model, <App />);
  cleanup = unmount;
  return { model, root: element, text: () => element.textContent ?? '' };
}

/** Lets RPC messages and store updates flow, inside act(). */
async function settle(check: () => void): Promise<void> {
  await vi.waitFor(async () => {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    check();
  });
}

function key(target: EventTarget, keyName: string): void {
  act(() => {
    target.dispatchEvent(new KeyboardEvent('keydown', { key: keyName, bubbles: true }));
  });
}

describe('the app', () => {
  it('says how to get a node when none is connected', async () => {
    const app = await renderApp(createFakeCore({ connected: false }), 'pods');
    await settle(() => expect(app.text()).toContain('No node connected'));
    expect(app.text()).toContain('npm run lab -- up');
  });

  it('counts the rows it shows and the rows a filter hides', async () => {
    const app = await renderApp(
      createFakeCore({ podsPerNode: 10, containersPerPod: 2 }),
      'containers',
    );
    await settle(() => expect(app.text()).toContain('20 containers'));
    await act(async () => {
      app.model.resourceViews.getState().setFilter('containers', { state: 'exited' });
      await Promise.resolve();
    });
    expect(app.text()).toMatch(/\d+ of 20 containers/);
  });

  it('names the resource in a confirmation and cancels it with Escape', async () => {
    const core = createFakeCore({ podsPerNode: 2, containersPerPod: 1 });
    const app = await renderApp(core, 'containers');
    await settle(() => expect(app.model.resources.getState().loaded.size).toBe(1));
    const [container] = deriveRows(
      app.model.rows,
      'containers',
      app.model.resources.getState().index,
    );
    if (container === undefined) throw new Error('no container');
    act(() => confirmRemoveContainer(app.model, container));
    const dialog = app.root.querySelector('[role="dialog"]');
    expect(dialog?.textContent).toContain(`Remove container ${container.name}?`);
    expect(dialog?.textContent).toContain(
      `crictl --runtime-endpoint unix:///run/fake-1/containerd.sock rm ${container.id}`,
    );
    key(dialog as Element, 'Escape');
    expect(app.root.querySelector('[role="dialog"]')).toBeNull();
    expect(core.calls).not.toContain('lifecycle.removeContainer');

    act(() => confirmRemoveContainer(app.model, container));
    const form = app.root.querySelector('[role="dialog"] form');
    // What Enter does in a browser (checked for real in the e2e suite): submit the form.
    act(() => {
      form?.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle(() => expect(core.calls).toContain('lifecycle.removeContainer'));
    await settle(() => expect(app.text()).toContain(`Removed ${container.name}`));
  });

  it('shows an action failure with its message and hint', async () => {
    const core = createFakeCore({ podsPerNode: 1, containersPerPod: 1 });
    const app = await renderApp(core, 'containers');
    await settle(() => expect(app.model.resources.getState().loaded.size).toBe(1));
    const { AppError } = await import('../../../shared/errors');
    core.failNext(
      'lifecycle.removeContainer',
      new AppError({
        code: 'failed-precondition',
        message: 'The container is running.',
        hint: 'Stop it first.',
      }),
    );
    const [container] = deriveRows(
      app.model.rows,
      'containers',
      app.model.resources.getState().index,
    );
    if (container === undefined) throw new Error('no container');
    act(() => confirmRemoveContainer(app.model, container));
    act(() => {
      app.root
        .querySelector('[role="dialog"] form')
        ?.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle(() => expect(app.text()).toContain(`Could not remove ${container.name}`));
    const alert = app.root.querySelector('.toasts [role="alert"]');
    expect(alert?.textContent).toContain('The container is running.');
    expect(alert?.textContent).toContain('Stop it first.');
  });

  it('validates the node form before saving', async () => {
    const core = createFakeCore({ connected: false });
    const app = await renderApp(core, 'nodes');
    await settle(() => expect(app.text()).toContain('Add node'));
    const add = [...app.root.querySelectorAll('button')].find((b) =>
      b.textContent?.includes('Add node'),
    );
    act(() => add?.click());
    const form = app.root.querySelector('[role="dialog"] form');
    act(() => {
      form?.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    const dialogText = app.root.querySelector('[role="dialog"]')?.textContent ?? '';
    expect(dialogText).toContain('Give the node a name.');
    expect(dialogText).toContain('Enter the runtime socket');
    expect(core.calls).not.toContain('nodes.saveProfile');
  });

  it('opens the command palette with Ctrl+K and filters commands', async () => {
    const app = await renderApp(createFakeCore(), 'nodes');
    await settle(() => expect(app.model.nodes.getState().loaded).toBe(true));
    act(() => {
      window.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'k', ctrlKey: true, bubbles: true }),
      );
    });
    const input = app.root.querySelector<HTMLInputElement>(
      '[role="combobox"][aria-label="Command"]',
    );
    expect(input).not.toBeNull();
    const options = (): string[] =>
      [...app.root.querySelectorAll('[role="option"]')].map((option) => option.textContent ?? '');
    expect(options().some((text) => text.includes('Go to Containers'))).toBe(true);
    act(() => {
      // React only sees a change made through the native setter.
      Reflect.set(HTMLInputElement.prototype, 'value', 'pull', input);
      input?.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(options()[0]).toContain('Pull an image');
    key(input as Element, 'Escape');
    expect(app.root.querySelector('[role="combobox"][aria-label="Command"]')).toBeNull();
  });
});

describe('a node whose runtime is down', () => {
  const outage = {
    kind: 'unreachable' as const,
    since: new Date(2026, 0, 1, 18, 14, 5).getTime(),
    lastSeenAt: new Date(2026, 0, 1, 18, 14, 0).getTime(),
    attempt: 3,
    nextAttemptAt: Date.now() + 60_000,
    error: {
      code: 'unavailable' as const,
      message:
        'The socket /run/fake-2/containerd.sock exists but nothing accepts connections on it.',
    },
  };

  it('hides its rows with a count, says since when it is down, and shows them again once back', async () => {
    const core = createFakeCore({ nodes: 2, podsPerNode: 4, containersPerPod: 1 });
    const app = await renderApp(core, 'pods');
    await settle(() => expect(app.text()).toContain('8 pods'));
    const down = core.nodeIds[1] ?? '';
    act(() =>
      core.setNodeStatus(down, {
        state: 'reconnecting',
        outage,
        error: outage.error,
        runtimeAsOf: outage.lastSeenAt,
      }),
    );
    await settle(() => expect(app.text()).toContain('worker-2 is down since 18:14:05'));
    expect(app.text()).toContain('Its 4 pods are hidden until it is back.');
    expect(app.text()).toContain('Attempt 3, the next in');
    expect(app.text()).toContain('4 pods');
    expect(app.text()).not.toContain('8 pods');

    // Scoped to the down node: unknown contents, never "runs no pods".
    act(() => app.model.nodes.getState().setScope({ kind: 'node', nodeId: down }));
    await settle(() => expect(app.text()).toContain('worker-2 is down'));
    expect(app.text()).not.toContain('runs no pods');

    act(() =>
      core.setNodeStatus(down, { state: 'connected', outage: undefined, error: undefined }),
    );
    await settle(() => expect(app.text()).toContain('4 pods'));
    expect(app.text()).not.toContain('is down');
  });

  it('marks its card reconnecting, its facts as of when it last answered, with Retry now', async () => {
    const core = createFakeCore({ nodes: 2 });
    const app = await renderApp(core, 'nodes');
    await settle(() => expect(app.model.nodes.getState().loaded).toBe(true));
    act(() =>
      core.setNodeStatus(core.nodeIds[1] ?? '', {
        state: 'reconnecting',
        outage,
        error: outage.error,
        runtimeAsOf: outage.lastSeenAt,
        runtimeChange: { from: 'containerd v1.6.20', to: 'containerd v2.1.9', at: outage.since },
      }),
    );
    await settle(() => expect(app.text()).toContain('reconnecting'));
    const card = app.root.querySelector('[aria-label="worker-2"]');
    expect(card?.textContent).toContain('Last known, as of 18:14:00');
    expect(card?.textContent).toContain('containerd v1.6.20 → containerd v2.1.9');
    expect(card?.textContent).toContain('since 18:14:05');
    const retry = [...(card?.querySelectorAll('button') ?? [])].find(
      (button) => button.textContent === 'Retry now',
    );
    expect(retry).toBeDefined();
    act(() => retry?.click());
    await settle(() => expect(core.calls).toContain('nodes.connect'));
  });
});
