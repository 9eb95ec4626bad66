import type { EventSink } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { NodeStatus, NodesDelta, StatsUpdate } from '../../../../shared/model';
import { StatsPoller, type StatsClient, type StatsTimings } from './poller';

/** What the hub needs from the node manager. */
export interface StatsNodes {
  /** The client of a connected node; throws an AppError saying why not otherwise. */
  client(nodeId: string): StatsClient;
  nodeName(nodeId: string): string;
  /** The nodes whose status changed. */
  onDidChange(listener: (delta: NodesDelta) => void): Disposable;
}

interface Entry {
  readonly client: StatsClient;
  readonly poller: StatsPoller;
}

/**
 * One StatsPoller per node with subscribers: created by the first subscription, disposed
 * with the last. A node that is reconnecting keeps its poller (its polls fail meanwhile,
 * and say so; they succeed again once it is back). When a node is disconnected or fails,
 * its subscriptions end with an error that says so (connecting again makes a new client,
 * so a new poller).
 */
export class StatsHub implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly nodeChanges: Disposable;

  constructor(
    private readonly nodes: StatsNodes,
    private readonly timings: Partial<StatsTimings> = {},
  ) {
    this.nodeChanges = nodes.onDidChange((delta) => this.onNodes(delta));
  }

  subscribe(nodeId: string, sink: EventSink<StatsUpdate>): Disposable {
    // Throws for an unknown or unconnected node: the subscription is refused.
    const client = this.nodes.client(nodeId);
    let entry = this.entries.get(nodeId);
    if (entry !== undefined && entry.client !== client) {
      // The node reconnected before its status said so: the old client is gone.
      this.end(nodeId, entry, this.disconnected(nodeId, undefined));
      entry = undefined;
    }
    if (entry === undefined) {
      entry = { client, poller: new StatsPoller({ client, timings: this.timings }) };
      this.entries.set(nodeId, entry);
    }
    const current = entry;
    const subscription = current.poller.subscribe(sink);
    return toDisposable(() => {
      subscription.dispose();
      if (current.poller.subscriberCount === 0 && this.entries.get(nodeId) === current) {
        this.entries.delete(nodeId);
        current.poller.dispose();
      }
    });
  }

  /** Nodes being polled now (for tests and diagnostics). */
  get polledNodes(): readonly string[] {
    return [...this.entries.keys()];
  }

  dispose(): void {
    this.nodeChanges.dispose();
    for (const entry of this.entries.values()) entry.poller.dispose();
    this.entries.clear();
  }

  private onNodes(delta: NodesDelta): void {
    for (const status of delta.upserted) {
      const entry = this.entries.get(status.nodeId);
      const live = status.state === 'connected' || status.state === 'reconnecting';
      if (entry !== undefined && !live) {
        this.end(status.nodeId, entry, this.disconnected(status.nodeId, status));
      }
    }
    for (const nodeId of delta.removed) {
      const entry = this.entries.get(nodeId);
      if (entry !== undefined) this.end(nodeId, entry, this.disconnected(nodeId, undefined));
    }
  }

  private end(nodeId: string, entry: Entry, error: AppError): void {
    this.entries.delete(nodeId);
    entry.poller.fail(error);
    entry.poller.dispose();
  }

  private disconnected(nodeId: string, status: NodeStatus | undefined): AppError {
    const name = status?.name ?? this.nodes.nodeName(nodeId);
    if (status?.error !== undefined) {
      return new AppError({
        code: 'connection-lost',
        message: `Stats of ${name} stopped: ${status.error.message.replace(/\.$/, '')}.`,
        ...(status.error.detail !== undefined && { detail: status.error.detail }),
        hint: status.error.hint ?? 'Connect the node again to see its stats.',
      });
    }
    return new AppError({
      code: 'failed-precondition',
      message:
        status === undefined
          ? `Stats of ${name} stopped: the node was removed.`
          : `Stats of ${name} stopped: the node was disconnected.`,
      hint: 'Connect the node again to see its stats.',
    });
  }
}
