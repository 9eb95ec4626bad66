/**
 * A fleet of fake CRI nodes (cri-node.ts) in a process of its own, so that their CPU is
 * not counted against Porthole's: `node --import tsx test/fakes/fleet-process.ts` forked
 * with an IPC channel. Tells the parent `{ type: 'ready', endpoints }`, then the changes
 * the nodes make, in batches (`{ type: 'changes', changes: [[node, containerId, state,
 * at], …] }`). Takes `{ type: 'freeze', node }`, `{ type: 'thaw', node }`,
 * `{ type: 'pause' }` and `{ type: 'resume' }` (every node's churn), and `{ type: 'stop' }`.
 *
 * Options as JSON in argv[2]: { dir, count, pods, containers, images, churnMs }.
 */
import { startFleet, type FakeChange, type FakeCriNode } from './cri-node';

export interface FleetOptions {
  readonly dir: string;
  readonly count: number;
  readonly pods: number;
  readonly containers: number;
  readonly images: number;
  readonly churnMs: readonly [number, number];
}

export type FleetChange = readonly [
  node: number,
  containerId: string,
  state: FakeChange['state'],
  at: number,
];

export type FleetMessage =
  | { readonly type: 'ready'; readonly endpoints: readonly string[] }
  | { readonly type: 'changes'; readonly changes: readonly FleetChange[] };

export type FleetCommand =
  | { readonly type: 'freeze' | 'thaw'; readonly node: number }
  | { readonly type: 'pause' }
  | { readonly type: 'resume' }
  | { readonly type: 'stop' };

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as FleetOptions;
  const send = (message: FleetMessage): void => {
    process.send?.(message);
  };
  const nodes: FakeCriNode[] = await startFleet(options.dir, options.count, {
    pods: options.pods,
    containers: options.containers,
    images: options.images,
    churnMs: options.churnMs,
  });
  let pending: FleetChange[] = [];
  nodes.forEach((node, index) => {
    node.onChange((change) => pending.push([index, change.containerId, change.state, change.at]));
  });
  const flush = setInterval(() => {
    if (pending.length === 0) return;
    send({ type: 'changes', changes: pending });
    pending = [];
  }, 100);
  process.on('message', (command: FleetCommand) => {
    if (command.type === 'stop') {
      clearInterval(flush);
      void Promise.all(nodes.map((node) => node.stop())).then(() => process.exit(0));
      return;
    }
    if (command.type === 'pause' || command.type === 'resume') {
      for (const node of nodes) {
        if (command.type === 'pause') node.pauseChurn();
        else node.resumeChurn();
      }
      return;
    }
    const node = nodes[command.node];
    if (command.type === 'freeze') node?.freeze();
    else node?.thaw();
  });
  // The parent is gone: so is the fleet.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', endpoints: nodes.map((node) => node.endpoint) });
}

void main();
