import { randomUUID } from 'node:crypto';
import type { AbortSignalLike } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { HostKeyPrompt, PendingPrompt, PromptAnswer } from '../../../../shared/model';
import { logger } from '../../base/log';

const promptsLog = logger('nodes');

/** Which node's connection attempt is asking. */
export interface PromptSubject {
  readonly nodeId: string;
  readonly nodeName: string;
}

/** Why a prompt ended without an answer. */
export type PromptEndReason = 'timeout' | 'cancelled' | 'disposed';

/** How a prompt ended: the user's answer, or why there is none. */
export type PromptOutcome<T> =
  | { readonly answered: true; readonly value: T }
  | { readonly answered: false; readonly reason: PromptEndReason };

export interface PromptBrokerOptions {
  /** How long a prompt stays open unanswered; default 5 minutes. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** Five minutes: long enough to look a fingerprint up, short enough not to hang forever. */
export const defaultPromptTimeoutMs = 5 * 60_000;

/** Longest passphrase accepted over the wire. */
const maxPassphraseLength = 64 * 1024;

interface OpenPrompt {
  readonly prompt: PendingPrompt;
  /** Settles the asker's promise; runs once. */
  readonly settle: (outcome: PromptOutcome<unknown>) => void;
}

/**
 * The questions connection attempts are waiting on (SSH host keys, key passphrases), as
 * the UI sees them: published whole on every change, answered by id. A question ends when
 * it is answered, when it times out, when its attempt's signal aborts or its node is
 * withdrawn (`cancelNode`), or when the broker is disposed; every way but an answer
 * resolves as not answered. Answers are handed to the asker and kept nowhere else:
 * a passphrase is never logged, published or put in an error.
 */
export class PromptBroker implements Disposable {
  private readonly open = new Map<string, OpenPrompt>();
  private readonly listeners = new Set<(prompts: readonly PendingPrompt[]) => void>();
  /** How long a prompt stays open unanswered. */
  readonly timeoutMs: number;
  private readonly now: () => number;
  private disposed = false;

  constructor(options: PromptBrokerOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? defaultPromptTimeoutMs;
    this.now = options.now ?? Date.now;
  }

  /** The open prompts, oldest first. */
  list(): readonly PendingPrompt[] {
    return [...this.open.values()].map((entry) => entry.prompt);
  }

  onDidChange(listener: (prompts: readonly PendingPrompt[]) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  }

  /** Asks whether to trust a host key; `value` is true when the user trusts it. */
  askHostKey(
    subject: PromptSubject,
    hostKey: HostKeyPrompt,
    signal?: AbortSignalLike,
  ): Promise<PromptOutcome<boolean>> {
    return this.ask<boolean>(
      (id, expiresAt) => ({ id, ...subjectOf(subject), expiresAt, kind: 'host-key', hostKey }),
      signal,
    );
  }

  /**
   * Asks for a key's passphrase; `value` is the passphrase, or undefined when the user
   * cancelled. `attempt` > 1 tells the UI the previous one was wrong.
   */
  askPassphrase(
    subject: PromptSubject,
    keyPath: string,
    attempt: number,
    signal?: AbortSignalLike,
  ): Promise<PromptOutcome<string | undefined>> {
    return this.ask<string | undefined>(
      (id, expiresAt) => ({
        id,
        ...subjectOf(subject),
        expiresAt,
        kind: 'passphrase',
        keyPath,
        attempt,
      }),
      signal,
    );
  }

  /**
   * Answers an open prompt. `answer` comes from a page over a wire and is checked here.
   * Throws `not-found` when there is no such open prompt, and `invalid-argument` (leaving
   * the prompt open) when the answer doesn't fit it.
   */
  answer(promptId: string, answer: PromptAnswer): void {
    const entry = this.open.get(promptId);
    if (entry === undefined) {
      throw new AppError({
        code: 'not-found',
        message: 'That question is no longer open.',
        hint: 'It was answered in another window, timed out, or its connection attempt ended.',
      });
    }
    const value = checkAnswer(entry.prompt, answer);
    this.close(promptId, { answered: true, value });
  }

  /** Withdraws every prompt of a node (it was disconnected or removed). */
  cancelNode(nodeId: string): void {
    for (const [id, entry] of [...this.open]) {
      if (entry.prompt.nodeId === nodeId) this.close(id, { answered: false, reason: 'cancelled' });
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const [id, entry] of [...this.open]) {
      this.open.delete(id);
      entry.settle({ answered: false, reason: 'disposed' });
    }
    this.listeners.clear();
  }

  // ---- internals ------------------------------------------------------------------

  private ask<T>(
    build: (id: string, expiresAt: number) => PendingPrompt,
    signal: AbortSignalLike | undefined,
  ): Promise<PromptOutcome<T>> {
    if (this.disposed) return Promise.resolve({ answered: false, reason: 'disposed' });
    if (signal?.aborted) return Promise.resolve({ answered: false, reason: 'cancelled' });
    const id = randomUUID();
    const prompt = build(id, this.now() + this.timeoutMs);
    return new Promise<PromptOutcome<T>>((resolve) => {
      const onAbort = (): void => this.close(id, { answered: false, reason: 'cancelled' });
      const timer = setTimeout(
        () => this.close(id, { answered: false, reason: 'timeout' }),
        this.timeoutMs,
      );
      // The prompt must not keep the process alive on its own.
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.open.set(id, {
        prompt,
        settle: (outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome as PromptOutcome<T>);
        },
      });
      this.emit();
    });
  }

  private close(id: string, outcome: PromptOutcome<unknown>): void {
    const entry = this.open.get(id);
    if (entry === undefined) return;
    this.open.delete(id);
    entry.settle(outcome);
    this.emit();
  }

  private emit(): void {
    if (this.disposed) return;
    const prompts = this.list();
    for (const listener of [...this.listeners]) {
      try {
        listener(prompts);
      } catch (error) {
        // One subscriber's failure must not keep the others (or the asker) from hearing;
        // it is a bug, so the log has it.
        promptsLog.error('A prompts listener failed.', error);
      }
    }
  }
}

function subjectOf(subject: PromptSubject): PromptSubject {
  return { nodeId: subject.nodeId, nodeName: subject.nodeName };
}

function invalidAnswer(message: string): AppError {
  return new AppError({ code: 'invalid-argument', message });
}

/**
 * The answer's value for this prompt, checked field by field. Messages name fields, never
 * values: a passphrase must not come back in an error.
 */
function checkAnswer(prompt: PendingPrompt, answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw invalidAnswer('The answer must be an object.');
  }
  const { kind } = answer as { kind?: unknown };
  if (kind !== prompt.kind) {
    throw invalidAnswer(`The answer must be of kind "${prompt.kind}", as the question it answers.`);
  }
  switch (prompt.kind) {
    case 'host-key': {
      const { trust } = answer as { trust?: unknown };
      if (typeof trust !== 'boolean') throw invalidAnswer('answer.trust must be true or false.');
      return trust;
    }
    case 'passphrase': {
      const { passphrase } = answer as { passphrase?: unknown };
      if (passphrase === undefined) return undefined;
      if (typeof passphrase !== 'string') {
        throw invalidAnswer('answer.passphrase must be a string, or absent to cancel.');
      }
      if (passphrase.length > maxPassphraseLength) {
        throw invalidAnswer('answer.passphrase is too long.');
      }
      return passphrase;
    }
  }
}
