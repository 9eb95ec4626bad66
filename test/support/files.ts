/**
 * What the files suites share (test/integration/files*.test.ts): a shell in a lab
 * container, a transfer as the `transfers` event shows it, and waiting on a condition.
 */
import type { CriClient } from '../../electron/core/base/cri';
import type { FileTransfer } from '../../shared/model';
import type { RpcClient } from '../../shared/rpc';

/** Runs a script in a container with ExecSync; its stdout, or a throw with its stderr. */
export function shellIn(
  cri: () => CriClient,
): (containerId: string, script: string) => Promise<string> {
  return async (containerId, script) => {
    const result = await cri().execSync(containerId, ['sh', '-c', script], 60);
    if (result.exitCode !== 0) {
      throw new Error(`${script} failed: ${Buffer.from(result.stderr).toString()}`);
    }
    return Buffer.from(result.stdout).toString('utf8');
  };
}

/** The transfer as a fresh subscriber of `transfers` gets it. */
export function transferOf(client: RpcClient, id: string): Promise<FileTransfer | undefined> {
  return new Promise((resolve) => {
    const subscription = client.subscribe('transfers', undefined, (list) => {
      subscription.dispose();
      resolve(list.find((t) => t.transferId === id));
    });
  });
}

/** Every state a transfer goes through, as the `transfers` event tells them, in order. */
export function statesOf(client: RpcClient, id: string): { states: string[]; dispose(): void } {
  const states: string[] = [];
  const subscription = client.subscribe('transfers', undefined, (list) => {
    const state = list.find((t) => t.transferId === id)?.state;
    if (state !== undefined && states[states.length - 1] !== state) states.push(state);
  });
  return { states, dispose: () => subscription.dispose() };
}

/** Polls `check` until it holds; throws, naming `what`, after `timeoutMs`. */
export async function until(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
