/**
 * A connected node's resource subscriptions: one ResourceWatcher per connection, made by
 * the first subscriber and disposed with the last, its health and liveness reported to
 * the connection (the monitor hears every answer; a failed list makes it look now).
 */
import type { EventSink } from '../../../../shared/contract';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';
import type { ResourceDelta } from '../../../../shared/model';
import type { TaskQueue } from '../../base/tasks';
import type { Connection } from './connection';
import { ResourceWatcher, type WatcherTimings } from './resource-watcher';

export interface WatchSetup {
  readonly nodeId: string;
  readonly name: string;
  /** The fleet-wide queue of full re-lists. */
  readonly lists: TaskQueue;
  readonly timings: Partial<WatcherTimings> | undefined;
  /** The node's status changed (a warning, the way it is kept fresh). */
  readonly changed: () => void;
}

export function subscribeResources(
  connection: Connection,
  sink: EventSink<ResourceDelta>,
  setup: WatchSetup,
): Disposable {
  connection.watcher ??= createWatcher(connection, setup);
  const watcher = connection.watcher;
  const subscription = watcher.subscribe(sink);
  return toDisposable(() => {
    subscription.dispose();
    // Nobody watching: stop polling the runtime.
    if (watcher.subscriberCount === 0 && connection.watcher === watcher) {
      watcher.dispose();
      connection.watcher = undefined;
    }
  });
}

function createWatcher(connection: Connection, setup: WatchSetup): ResourceWatcher {
  const watcher = new ResourceWatcher({
    nodeId: setup.nodeId,
    name: setup.name,
    client: connection.client,
    // Unknown yet: try the stream; a runtime without it says so at once.
    useEvents: connection.updates !== 'polling',
    lists: setup.lists,
    ...(setup.timings !== undefined && { timings: setup.timings }),
    onAlive: () => connection.monitor?.heard(),
    onHealth: (error) => {
      // A failed list may be the runtime going away: the monitor has the verdict.
      if (error !== undefined) connection.monitor?.check();
      const changed = (connection.error?.message ?? '') !== (error?.message ?? '');
      connection.error = error;
      if (changed) setup.changed();
    },
    onEventsUnsupported: () => {
      connection.updates = 'polling';
      setup.changed();
    },
  });
  // Subscribed while the runtime is down: nothing to read until it is back.
  if (connection.outage !== undefined) watcher.suspend();
  return watcher;
}
