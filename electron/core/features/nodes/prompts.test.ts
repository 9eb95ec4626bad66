import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { HostKeyPrompt, PendingPrompt, PromptAnswer } from '../../../../shared/model';
import { PromptBroker } from './prompts';

const node = { nodeId: 'n1', nodeName: 'node-1' };
const hostKey: HostKeyPrompt = {
  host: '10.0.0.5',
  port: 22,
  keyType: 'ssh-ed25519',
  fingerprintSha256: 'SHA256:abc',
};

describe('PromptBroker', () => {
  let broker: PromptBroker;
  let published: (readonly PendingPrompt[])[];

  beforeEach(() => {
    vi.useFakeTimers();
    broker = new PromptBroker({ timeoutMs: 60_000, now: () => 1_000 });
    published = [];
    broker.onDidChange((prompts) => published.push(prompts));
  });

  afterEach(() => {
    broker.dispose();
    vi.useRealTimers();
  });

  it('publishes a host key question and hands the answer to the asker', async () => {
    const asked = broker.askHostKey(node, hostKey);
    expect(broker.list()).toEqual([
      {
        id: expect.any(String) as string,
        nodeId: 'n1',
        nodeName: 'node-1',
        expiresAt: 61_000,
        kind: 'host-key',
        hostKey,
      },
    ]);
    const id = broker.list()[0]!.id;
    broker.answer(id, { kind: 'host-key', trust: true });
    await expect(asked).resolves.toEqual({ answered: true, value: true });
    expect(broker.list()).toEqual([]);
    expect(published.map((list) => list.length)).toEqual([1, 0]);
  });

  it('passes a passphrase on without ever publishing it', async () => {
    const asked = broker.askPassphrase(node, '/home/u/.ssh/id_ed25519', 2);
    const prompt = broker.list()[0]!;
    expect(prompt).toMatchObject({ kind: 'passphrase', keyPath: '/home/u/.ssh/id_ed25519' });
    expect(prompt).toMatchObject({ attempt: 2 });
    broker.answer(prompt.id, { kind: 'passphrase', passphrase: 's3cret' });
    await expect(asked).resolves.toEqual({ answered: true, value: 's3cret' });
    expect(JSON.stringify(published)).not.toContain('s3cret');
  });

  it('reads an absent passphrase as a cancel', async () => {
    const asked = broker.askPassphrase(node, '/k', 1);
    broker.answer(broker.list()[0]!.id, { kind: 'passphrase' });
    await expect(asked).resolves.toEqual({ answered: true, value: undefined });
  });

  it('refuses unknown and already-answered prompts with not-found', async () => {
    expect(() => broker.answer('nope', { kind: 'host-key', trust: true })).toThrow(
      expect.objectContaining({ code: 'not-found' }) as Error,
    );
    const asked = broker.askHostKey(node, hostKey);
    const id = broker.list()[0]!.id;
    broker.answer(id, { kind: 'host-key', trust: false });
    await expect(asked).resolves.toEqual({ answered: true, value: false });
    expect(() => broker.answer(id, { kind: 'host-key', trust: true })).toThrow(AppError);
  });

  it('refuses answers that do not fit, keeps the prompt open, and never echoes a secret', () => {
    void broker.askPassphrase(node, '/k', 1);
    const id = broker.list()[0]!.id;
    const refusal = (answer: unknown): AppError => {
      try {
        broker.answer(id, answer as PromptAnswer);
      } catch (error) {
        return error as AppError;
      }
      throw new Error('expected a refusal');
    };
    expect(refusal({ kind: 'host-key', trust: true })).toMatchObject({
      code: 'invalid-argument',
    });
    expect(refusal(null)).toMatchObject({ code: 'invalid-argument' });
    const numeric = refusal({ kind: 'passphrase', passphrase: 12345678 });
    expect(numeric.code).toBe('invalid-argument');
    expect(JSON.stringify(numeric.toJSON())).not.toContain('12345678');
    const long = 'x'.repeat(70_000);
    expect(JSON.stringify(refusal({ kind: 'passphrase', passphrase: long }).toJSON())).not.toMatch(
      /xxxx/,
    );
    expect(broker.list().map((prompt) => prompt.id)).toEqual([id]);
  });

  it('checks host key answers too', () => {
    void broker.askHostKey(node, hostKey);
    const id = broker.list()[0]!.id;
    expect(() => broker.answer(id, { kind: 'host-key', trust: 'yes' } as never)).toThrow(
      /answer.trust/,
    );
    expect(broker.list()).toHaveLength(1);
  });

  it('times a prompt out as not answered and drops it', async () => {
    const asked = broker.askHostKey(node, hostKey);
    const id = broker.list()[0]!.id;
    vi.advanceTimersByTime(59_999);
    expect(broker.list()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expect(asked).resolves.toEqual({ answered: false, reason: 'timeout' });
    expect(broker.list()).toEqual([]);
    expect(() => broker.answer(id, { kind: 'host-key', trust: true })).toThrow(
      expect.objectContaining({ code: 'not-found' }) as Error,
    );
  });

  it('withdraws a prompt when its signal aborts, or already aborted', async () => {
    const controller = new AbortController();
    const asked = broker.askPassphrase(node, '/k', 1, controller.signal);
    expect(broker.list()).toHaveLength(1);
    controller.abort();
    await expect(asked).resolves.toEqual({ answered: false, reason: 'cancelled' });
    expect(broker.list()).toEqual([]);
    await expect(broker.askHostKey(node, hostKey, controller.signal)).resolves.toEqual({
      answered: false,
      reason: 'cancelled',
    });
    expect(published.map((list) => list.length)).toEqual([1, 0]);
  });

  it("withdraws a node's prompts, and only its own", async () => {
    const mine = broker.askHostKey(node, hostKey);
    const other = broker.askHostKey({ nodeId: 'n2', nodeName: 'node-2' }, hostKey);
    broker.cancelNode('n1');
    await expect(mine).resolves.toEqual({ answered: false, reason: 'cancelled' });
    expect(broker.list().map((prompt) => prompt.nodeId)).toEqual(['n2']);
    broker.answer(broker.list()[0]!.id, { kind: 'host-key', trust: true });
    await expect(other).resolves.toMatchObject({ answered: true });
  });

  it('lists prompts oldest first', () => {
    void broker.askHostKey(node, hostKey);
    void broker.askPassphrase({ nodeId: 'n2', nodeName: 'node-2' }, '/k', 1);
    expect(broker.list().map((prompt) => prompt.kind)).toEqual(['host-key', 'passphrase']);
  });

  it('ends every prompt on dispose, and answers later asks at once', async () => {
    const asked = broker.askHostKey(node, hostKey);
    broker.dispose();
    await expect(asked).resolves.toEqual({ answered: false, reason: 'disposed' });
    expect(broker.list()).toEqual([]);
    await expect(broker.askPassphrase(node, '/k', 1)).resolves.toEqual({
      answered: false,
      reason: 'disposed',
    });
  });

  it('keeps telling the other listeners when one throws', () => {
    const seen: number[] = [];
    broker.onDidChange(() => {
      throw new Error('listener bug');
    });
    broker.onDidChange((prompts) => seen.push(prompts.length));
    void broker.askHostKey(node, hostKey);
    expect(seen).toEqual([1]);
  });
});
