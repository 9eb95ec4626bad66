// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventSink } from '../../../../shared/contract';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import { AppError } from '../../../../shared/errors';
import type { PendingPrompt, PromptAnswer } from '../../../../shared/model';
import { ModelProvider } from '../../app/context';
import { createAppModel } from '../../app/model';
import { createInMemoryPorthole, type PortholeClient } from '../../platform';
import { PromptDialog, Prompts } from './PromptDialog';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean | undefined;
}
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const hostKeyPrompt: PendingPrompt = {
  id: 'p1',
  nodeId: 'n1',
  nodeName: 'node-1',
  expiresAt: 0,
  kind: 'host-key',
  hostKey: {
    host: '10.0.0.5',
    port: 2222,
    keyType: 'ssh-ed25519',
    fingerprintSha256: 'SHA256:AbCdEf0123',
  },
};

const passphrasePrompt = (attempt = 1, id = 'p2'): PendingPrompt => ({
  id,
  nodeId: 'n1',
  nodeName: 'node-1',
  expiresAt: 0,
  kind: 'passphrase',
  keyPath: '/home/me/.ssh/id_locked',
  attempt,
});

describe('PromptDialog', () => {
  let sinks: EventSink<readonly PendingPrompt[]>[];
  let answers: [string, PromptAnswer][];
  let answerFailure: AppError | undefined;
  let client: PortholeClient;
  let element: HTMLElement;
  let root: Root | undefined;

  beforeEach(() => {
    sinks = [];
    answers = [];
    answerFailure = undefined;
    const services = fakeServices({
      nodes: {
        answerPrompt: (id, answer) => {
          answers.push([id, answer]);
          return answerFailure === undefined ? Promise.resolve() : Promise.reject(answerFailure);
        },
      },
    });
    const events = fakeEvents({
      prompts: (_argument, sink) => {
        sinks.push(sink);
        sink.next([]);
        return { dispose: () => sinks.splice(sinks.indexOf(sink), 1) };
      },
    });
    client = createInMemoryPorthole(services, events, { clone: 'json' });
    element = document.createElement('div');
    document.body.append(element);
  });

  afterEach(() => {
    act(() => root?.unmount());
    root = undefined;
    client.dispose();
    element.remove();
  });

  /** Lets RPC messages and React updates flow. */
  async function settle(check: () => void): Promise<void> {
    await vi.waitFor(async () => {
      await act(async () => {
        await new Promise((resolve) => setTimeout(resolve, 0));
      });
      check();
    });
  }

  async function render(inApp = false): Promise<void> {
    await act(async () => {
      root = createRoot(element);
      root.render(
        inApp ? (
          <ModelProvider model={createAppModel(client)}>
            <Prompts />
          </ModelProvider>
        ) : (
          <PromptDialog client={client} />
        ),
      );
      await Promise.resolve();
    });
    await settle(() => expect(sinks).toHaveLength(1));
  }

  async function publish(prompts: readonly PendingPrompt[]): Promise<void> {
    await act(async () => {
      for (const sink of sinks) sink.next(prompts);
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
  }

  const dialog = (): HTMLElement | null => element.querySelector('[role="dialog"]');
  const button = (label: string): HTMLButtonElement => {
    const found = [...element.querySelectorAll('button')].find(
      (candidate) => candidate.textContent === label,
    );
    if (found === undefined) throw new Error(`no button "${label}"`);
    return found;
  };
  const press = (key: string): void =>
    act(() => {
      dialog()?.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
    });

  function type(input: HTMLInputElement, value: string): void {
    act(() => {
      // React tracks the value it set: go through the prototype's setter, as typing does.
      Reflect.set(HTMLInputElement.prototype, 'value', value, input);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
  }

  it("mounts in the app root on the app model's client", async () => {
    await render(true);
    await publish([hostKeyPrompt]);
    await settle(() => expect(dialog()?.textContent).toContain('SHA256:AbCdEf0123'));
  });

  it('shows nothing while no question is open', async () => {
    await render();
    expect(dialog()).toBeNull();
  });

  it('asks about a host key as a modal naming the host, key type and fingerprint', async () => {
    await render();
    await publish([hostKeyPrompt]);
    await settle(() => expect(dialog()).not.toBeNull());
    const shown = dialog()!;
    expect(shown.getAttribute('aria-modal')).toBe('true');
    const title = document.getElementById(shown.getAttribute('aria-labelledby') ?? '');
    expect(title?.textContent).toBe('Connect to node-1?');
    const description = document.getElementById(shown.getAttribute('aria-describedby') ?? '');
    expect(description?.textContent).toBe(
      'The authenticity of host 10.0.0.5:2222 can’t be established.',
    );
    expect(shown.textContent).toContain('ssh-ed25519');
    const fingerprint = [...shown.querySelectorAll('code.mono')].find(
      (code) => code.textContent === 'SHA256:AbCdEf0123',
    );
    expect(fingerprint).toBeDefined();
    // Enter must not trust a key by accident: Cancel has the focus.
    expect(document.activeElement).toBe(button('Cancel'));

    act(() => button('Trust and connect').click());
    await settle(() => expect(answers).toEqual([['p1', { kind: 'host-key', trust: true }]]));
    expect(button('Trust and connect').disabled).toBe(true);
    await publish([]);
    expect(dialog()).toBeNull();
  });

  it('declines a host key with Escape', async () => {
    await render();
    await publish([hostKeyPrompt]);
    await settle(() => expect(dialog()).not.toBeNull());
    press('Escape');
    await settle(() => expect(answers).toEqual([['p1', { kind: 'host-key', trust: false }]]));
  });

  it('asks for a passphrase in a password field, and says when one was wrong', async () => {
    await render();
    await publish([passphrasePrompt(1)]);
    await settle(() => expect(dialog()).not.toBeNull());
    const input = element.querySelector('input')!;
    expect(input.type).toBe('password');
    expect(input.getAttribute('autocomplete')).toBe('off');
    expect(document.activeElement).toBe(input);
    expect(dialog()?.textContent).toContain('/home/me/.ssh/id_locked');
    expect(button('Unlock').disabled).toBe(true);

    type(input, 'hunter2');
    expect(button('Unlock').disabled).toBe(false);
    act(() => {
      element
        .querySelector('form')
        ?.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle(() =>
      expect(answers).toEqual([['p2', { kind: 'passphrase', passphrase: 'hunter2' }]]),
    );

    // The core asks again: a new question, a fresh (empty) field, and why.
    await publish([passphrasePrompt(2, 'p3')]);
    await settle(() => expect(dialog()?.textContent).toContain('did not unlock the key'));
    const again = element.querySelector('input')!;
    expect(again.value).toBe('');
    expect(again.getAttribute('aria-invalid')).toBe('true');
    expect(element.innerHTML).not.toContain('hunter2');
  });

  it('cancels a passphrase with Escape, sending no passphrase', async () => {
    await render();
    await publish([passphrasePrompt(1)]);
    await settle(() => expect(dialog()).not.toBeNull());
    type(element.querySelector('input')!, 'typed but not sent');
    press('Escape');
    await settle(() => expect(answers).toEqual([['p2', { kind: 'passphrase' }]]));
  });

  it('shows the oldest question first and counts the others', async () => {
    await render();
    await publish([hostKeyPrompt, passphrasePrompt(1)]);
    await settle(() => expect(dialog()?.textContent).toContain('1 more question waiting'));
    expect(dialog()?.textContent).toContain('authenticity');
    await publish([passphrasePrompt(1)]);
    await settle(() => expect(dialog()?.textContent).toContain('Unlock the key for node-1'));
  });

  it('shows why an answer failed, but not a question that is simply gone', async () => {
    await render();
    await publish([hostKeyPrompt]);
    await settle(() => expect(dialog()).not.toBeNull());
    answerFailure = new AppError({ code: 'connection-lost', message: 'The core went away.' });
    act(() => button('Trust and connect').click());
    await settle(() =>
      expect(element.querySelector('[role="alert"]')?.textContent).toBe('The core went away.'),
    );
    expect(button('Trust and connect').disabled).toBe(false);

    answerFailure = new AppError({
      code: 'not-found',
      message: 'That question is no longer open.',
    });
    act(() => button('Trust and connect').click());
    await settle(() => expect(answers).toHaveLength(2));
    expect(element.querySelector('[role="alert"]')).toBeNull();
  });
});
