/**
 * The fleet-wide bounds on work against runtimes: how many connect, list or are probed at
 * once across every node. Each queue gives the event loop a turn between batches, so a
 * fleet of 500 connecting (and sending its first lists) never stalls the loop for long.
 */
import { TaskQueue } from '../../base/tasks';

export class FleetQueues {
  /** Enough to keep many runtimes' round trips in flight, few enough that answers don't pile up. */
  readonly connects = new TaskQueue(16, { yieldBetween: true });
  /** Full re-lists: first snapshots, consistency checks, polls. */
  readonly lists = new TaskQueue(8, { yieldBetween: true });
  /** Capability probes: in the background, behind connects and lists. */
  readonly probes = new TaskQueue(4, { yieldBetween: true });
}
