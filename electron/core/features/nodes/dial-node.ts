/**
 * Reaching a node's runtime: its SSH connection first for an SSH node (asking the user
 * through the prompt broker), then a CRI client, then the runtime's facts (Version and
 * Status), the only calls a connect waits for. The facts are read through the fleet-wide
 * connect queue: a fleet connects a batch at a time, with a turn of the loop between.
 */
import type { RuntimeInfo } from '../../../../shared/model';
import type { CriClientOptions } from '../../base/cri';
import type { TaskQueue } from '../../base/tasks';
import type { NodeClient } from './connection';
import type { NodeEntry } from './entries';
import { cancelledAttempt, type Attempt } from './node-errors';
import type { PromptBroker } from './prompts';
import type { OpenSsh, SshConnection } from './ssh';
import { openSshNode } from './ssh-open';

export interface DialedNode {
  readonly client: NodeClient;
  readonly ssh: SshConnection | undefined;
  readonly runtime: RuntimeInfo;
}

export interface DialOptions {
  readonly createClient: (options: CriClientOptions) => NodeClient;
  readonly openSsh: OpenSsh | undefined;
  readonly prompts: PromptBroker;
  readonly queue: TaskQueue;
}

/** Rejects (having closed what it opened) when the node can't be reached or `attempt` ends. */
export async function dialNode(
  entry: NodeEntry,
  attempt: Attempt,
  options: DialOptions,
): Promise<DialedNode> {
  const aborted = attempt.controller.signal;
  let ssh: SshConnection | undefined;
  let client: NodeClient | undefined;
  try {
    const profile = entry.profile;
    if (profile?.kind === 'ssh') {
      ssh = await openSshNode(options.openSsh, options.prompts, entry, profile, attempt);
    }
    // The SSH login may have finished just as the attempt was called off.
    if (aborted.aborted) throw cancelledAttempt(entry.name);
    const timeout = entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs } : {};
    // Capabilities are learnt after, from cheap calls and first use ("unknown" until then).
    // The client is made in the queue too: making a gRPC channel takes a moment, and a
    // fleet connected at once made 500 of them in one turn of the loop.
    const runtime = await options.queue.run(async () => {
      if (aborted.aborted) throw cancelledAttempt(entry.name);
      const created = options.createClient(
        ssh !== undefined
          ? { endpoint: ssh.endpoint, ...timeout }
          : {
              endpoint: entry.endpoint,
              ...(entry.imageEndpoint !== undefined && { imageEndpoint: entry.imageEndpoint }),
              ...timeout,
            },
      );
      client = created;
      return created.runtimeInfo({ signal: aborted });
    });
    if (aborted.aborted || client === undefined) throw cancelledAttempt(entry.name);
    return { client, ssh, runtime };
  } catch (error) {
    client?.dispose();
    ssh?.dispose();
    throw error;
  }
}
