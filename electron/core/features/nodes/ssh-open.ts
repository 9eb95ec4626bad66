/** Opening an SSH node's connection, its questions going to the prompt broker. */
import { AppError } from '../../../../shared/errors';
import type { SshNodeProfile } from '../../../../shared/model';
import type { NodeEntry } from './entries';
import type { Attempt } from './node-errors';
import type { PromptBroker } from './prompts';
import type { OpenSsh, SshConnection } from './ssh';

export function openSshNode(
  openSsh: OpenSsh | undefined,
  prompts: PromptBroker,
  entry: NodeEntry,
  profile: SshNodeProfile,
  attempt: Attempt,
): Promise<SshConnection> {
  if (openSsh === undefined) {
    return Promise.reject(
      new AppError({
        code: 'unimplemented',
        message: `${entry.name} is reached over SSH, which this Porthole core was started without.`,
      }),
    );
  }
  const subject = { nodeId: entry.nodeId, nodeName: entry.name };
  // The signal outlives the attempt (it is the connection's lifetime): a reconnect's
  // question is withdrawn when the node is disconnected.
  const signal = attempt.controller.signal;
  const asked = new Map<string, number>();
  return openSsh(profile, {
    signal,
    confirmHostKey: async (hostKey) => {
      const outcome = await prompts.askHostKey(subject, hostKey, signal);
      if (!outcome.answered) {
        if (outcome.reason === 'timeout') attempt.timedOut = true;
        return false;
      }
      if (!outcome.value) attempt.declinedHostKey = true;
      return outcome.value;
    },
    askPassphrase: async (keyPath) => {
      const count = (asked.get(keyPath) ?? 0) + 1;
      asked.set(keyPath, count);
      const outcome = await prompts.askPassphrase(subject, keyPath, count, signal);
      if (outcome.answered) return outcome.value;
      if (outcome.reason === 'timeout') attempt.timedOut = true;
      return undefined;
    },
  });
}
