/**
 * The statuses a node's runtime events carried lately, by container: what the flight
 * recorder needs of a start or an exit (its times, code and reason) without a
 * ContainerStatus call per change, which at fleet size (hundreds of changes a second) was
 * a round trip per change. Only the latest of each container, and only a few containers
 * per node: the recorder reads them within moments, and asks the runtime for an older one.
 */
import type { ContainerDetail, ContainerOutcome } from '../../../../shared/model';

export class RecentStatuses {
  private readonly byId = new Map<string, ContainerOutcome>();

  constructor(private readonly capacity = 64) {}

  note(status: ContainerDetail): void {
    const { state, startedAt, finishedAt, exitCode, reason, message } = status;
    this.byId.delete(status.id);
    this.byId.set(status.id, {
      state,
      reason,
      message,
      ...(startedAt !== undefined && { startedAt }),
      ...(finishedAt !== undefined && { finishedAt }),
      ...(exitCode !== undefined && { exitCode }),
    });
    // The map keeps insertion order: the first key is the one noted longest ago.
    if (this.byId.size > this.capacity) {
      const oldest = this.byId.keys().next();
      if (oldest.done !== true) this.byId.delete(oldest.value);
    }
  }

  get(containerId: string): ContainerOutcome | undefined {
    return this.byId.get(containerId);
  }

  /** A list read the container since: the event's word about it may be out of date. */
  forget(containerId: string): void {
    this.byId.delete(containerId);
  }

  clear(): void {
    this.byId.clear();
  }
}
