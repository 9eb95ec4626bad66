// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import type { LeftoverProcess, LeftoverRef, TerminalInfo } from '../../../../shared/model';
import { ModelProvider } from '../../app/context';
import { createAppModel } from '../../app/model';
import { createInMemoryPorthole } from '../../platform';
import { LeftoverFinder } from './LeftoverFinder';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean | undefined;
}
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const info: TerminalInfo = {
  terminalId: 't1',
  sessionId: 's1',
  nodeId: 'n1',
  containerId: 'c1',
  containerName: 'web',
  kind: 'exec',
  command: ['ash'],
  tty: true,
  stdin: true,
  transport: 'spdy',
  protocol: 'v4.channel.k8s.io',
  attempts: [],
  openedAt: 1234,
};

const shell: LeftoverProcess = { pid: 42, command: ['ash'], startTicks: 99, runningForMs: 125_000 };

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

async function render(terminals: {
  findLeftover: (ref: LeftoverRef) => Promise<LeftoverProcess | undefined>;
  endLeftover: (
    ref: LeftoverRef,
    process: LeftoverProcess,
  ) => Promise<'terminated' | 'killed' | 'gone'>;
}): Promise<HTMLElement> {
  const model = createAppModel(createInMemoryPorthole(fakeServices({ terminals }), fakeEvents()), {
    schedule: (flush) => queueMicrotask(flush),
  });
  const element = document.createElement('div');
  document.body.append(element);
  const root = createRoot(element);
  await act(async () => {
    root.render(
      <ModelProvider model={model}>
        <LeftoverFinder info={info} />
      </ModelProvider>,
    );
    await Promise.resolve();
  });
  cleanup = () => {
    act(() => root.unmount());
    model.dispose();
    model.client.dispose();
    element.remove();
  };
  return element;
}

async function click(element: HTMLElement, label: string): Promise<void> {
  const button = [...element.querySelectorAll('button')].find((b) => b.textContent === label);
  if (button === undefined) throw new Error(`no button ${label}: ${element.textContent}`);
  await act(async () => {
    button.click();
    await Promise.resolve();
  });
}

describe('the leftover process of a broken session', () => {
  it('is looked for in the container, shown, and ended on request', async () => {
    const find = vi.fn((_ref: LeftoverRef) => Promise.resolve<LeftoverProcess | undefined>(shell));
    const end = vi.fn(() => Promise.resolve('terminated' as const));
    const element = await render({ findLeftover: find, endLeftover: end });
    await click(element, 'Look for ash in web');
    await vi.waitFor(() =>
      expect(element.textContent).toContain('Still running: ash (pid 42, for 2m)'),
    );
    // The call's first argument (the RPC adds its call context after it).
    expect(find.mock.calls[0]?.[0]).toEqual({
      nodeId: 'n1',
      containerId: 'c1',
      command: ['ash'],
      openedAt: 1234,
    });
    await click(element, 'End it');
    await vi.waitFor(() => expect(element.textContent).toContain('Ended ash (pid 42).'));
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('says when it is gone, and why it could not look', async () => {
    const gone = await render({
      findLeftover: () => Promise.resolve(undefined),
      endLeftover: () => Promise.resolve('gone'),
    });
    await click(gone, 'Look for ash in web');
    await vi.waitFor(() => expect(gone.textContent).toContain('ash is no longer running.'));
    cleanup?.();
    cleanup = undefined;
    const failing = await render({
      findLeftover: () =>
        Promise.reject(new Error('The socket exists but nothing accepts connections on it.')),
      endLeftover: () => Promise.resolve('gone'),
    });
    await click(failing, 'Look for ash in web');
    await vi.waitFor(() => expect(failing.textContent).toContain('nothing accepts connections'));
    expect(failing.textContent).toContain('Look again');
  });
});
