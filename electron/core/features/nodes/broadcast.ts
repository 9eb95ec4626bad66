/**
 * The `nodes` event's deltas: each change sends the status of the node that changed, and
 * nothing else, so a change costs O(1) in the number of nodes. A new subscriber gets a
 * reset, in chunks so that a fleet's first message doesn't hold the event loop (or the IPC
 * channel) for long.
 */
import type { EventSink } from '../../../../shared/contract';
import { Emitter, type Event } from '../../../../shared/event';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { NodeStatus, NodesDelta } from '../../../../shared/model';
import { yieldToLoop } from '../../base/tasks';

/** Statuses per message of a reset. */
export const resetChunkSize = 100;

export interface NodeStatusSource {
  /** Every node's id, in list order. */
  ids(): readonly string[];
  /** A node's status now, or undefined when it is gone. */
  status(nodeId: string): NodeStatus | undefined;
}

export class NodeChanges implements Disposable {
  private readonly emitter = new Emitter<NodesDelta>();
  /** Only the nodes that changed (never a reset). */
  readonly onDidChange: Event<NodesDelta> = this.emitter.event;
  private disposed = false;

  constructor(private readonly source: NodeStatusSource) {}

  /** The node's status (or its existence) changed. */
  mark(nodeId: string): void {
    if (this.disposed || !this.emitter.hasListeners) return;
    const status = this.source.status(nodeId);
    this.emitter.fire(
      status === undefined
        ? { reset: false, upserted: [], removed: [nodeId] }
        : { reset: false, upserted: [status], removed: [] },
    );
  }

  /**
   * Sends `sink` every node's status: the first chunk at once with `reset: true`, the rest
   * after a turn of the loop each. Statuses are read as each chunk goes, so none is stale.
   */
  sendReset(sink: EventSink<NodesDelta>): Disposable {
    let cancelled = false;
    const ids = this.source.ids();
    const chunk = (from: number): NodeStatus[] =>
      ids.slice(from, from + resetChunkSize).flatMap((nodeId) => this.source.status(nodeId) ?? []);
    sink.next({ reset: true, upserted: chunk(0), removed: [] });
    void (async () => {
      for (let from = resetChunkSize; from < ids.length; from += resetChunkSize) {
        await yieldToLoop();
        if (cancelled || this.disposed) return;
        sink.next({ reset: false, upserted: chunk(from), removed: [] });
      }
    })();
    return toDisposable(() => (cancelled = true));
  }

  dispose(): void {
    this.disposed = true;
    this.emitter.dispose();
  }
}
