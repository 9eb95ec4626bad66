/**
 * Fake CRI nodes in processes of their own (fleet-process.ts), so that their CPU and their
 * event loop are not Porthole's: the fleet bench's nodes, and the fleet e2e's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { FleetChange, FleetCommand, FleetMessage, FleetOptions } from './fleet-process';

export interface ForkedFleet {
  /** Every node's endpoint, in order: node `i` is `endpoints[i]`. */
  readonly endpoints: readonly string[];
  /** The changes the nodes make, in batches; `node` is its index in `endpoints`. */
  onChanges(listener: (changes: readonly FleetChange[]) => void): void;
  /** Freezes (socket open, nothing answered) or thaws node `node`. */
  freeze(node: number): void;
  thaw(node: number): void;
  /** Stops every node's churn, and starts it again: counts hold still in between. */
  pauseChurn(): void;
  resumeChurn(): void;
  stop(): Promise<void>;
}

const script = resolve(import.meta.dirname, 'fleet-process.ts');

function forkOne(options: FleetOptions): Promise<ForkedFleet> {
  const child: ChildProcess = fork(script, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const listeners = new Set<(changes: readonly FleetChange[]) => void>();
  const command = (message: FleetCommand): void => {
    if (child.connected) child.send(message);
  };
  return new Promise((resolvePromise, reject) => {
    child.once('exit', (code) => reject(new Error(`the fleet process exited (${code})`)));
    child.on('message', (message: FleetMessage) => {
      if (message.type === 'changes') {
        for (const listener of listeners) listener(message.changes);
        return;
      }
      resolvePromise({
        endpoints: message.endpoints,
        onChanges: (listener) => listeners.add(listener),
        freeze: (node) => command({ type: 'freeze', node }),
        thaw: (node) => command({ type: 'thaw', node }),
        pauseChurn: () => command({ type: 'pause' }),
        resumeChurn: () => command({ type: 'resume' }),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) {
              done();
              return;
            }
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            command({ type: 'stop' });
          }),
      });
    });
  });
}

/**
 * `options.count` nodes spread over `processes` processes (in `options.dir/<process>`),
 * seen as one fleet: node indexes run across the processes in order.
 */
export async function forkFleet(options: FleetOptions, processes = 1): Promise<ForkedFleet> {
  const processCount = Math.max(1, Math.min(processes, options.count));
  const sizes = Array.from(
    { length: processCount },
    (_, at) =>
      Math.floor(options.count / processCount) + (at < options.count % processCount ? 1 : 0),
  );
  const started = await Promise.allSettled(
    sizes.map((count, at) => forkOne({ ...options, dir: join(options.dir, String(at)), count })),
  );
  const parts = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(parts.map((part) => part.stop()));
    throw failed.reason;
  }
  const offsets = parts.map((_, at) => sizes.slice(0, at).reduce((sum, size) => sum + size, 0));
  /** The process that holds node `node`, and the node's index in it. */
  const locate = (node: number): { part: ForkedFleet; index: number } | undefined => {
    for (let at = parts.length - 1; at >= 0; at -= 1) {
      const offset = offsets[at] ?? 0;
      const part = parts[at];
      if (part !== undefined && node >= offset) return { part, index: node - offset };
    }
    return undefined;
  };
  return {
    endpoints: parts.flatMap((part) => part.endpoints),
    onChanges: (listener) =>
      parts.forEach((part, at) => {
        const offset = offsets[at] ?? 0;
        part.onChanges((changes) =>
          listener(
            offset === 0
              ? changes
              : changes.map(([node, ...rest]) => [node + offset, ...rest] as FleetChange),
          ),
        );
      }),
    freeze: (node) => {
      const found = locate(node);
      found?.part.freeze(found.index);
    },
    thaw: (node) => {
      const found = locate(node);
      found?.part.thaw(found.index);
    },
    pauseChurn: () => parts.forEach((part) => part.pauseChurn()),
    resumeChurn: () => parts.forEach((part) => part.resumeChurn()),
    stop: async () => {
      await Promise.all(parts.map((part) => part.stop()));
    },
  };
}
