/**
 * Runtime events applied to a node's rows from their own payload. A container event
 * carries the status of its pod and of the pod's containers (containerd, CRI-O): a row
 * the watcher has is updated from it (its state is what can change: the rest of a row is
 * fixed for its life), and only rows whose version moved are sent. A row it has not seen
 * (a container just created) is named for reading alone, so that it has exactly the shape
 * a list gives it. A deleted event removes its row.
 */
import type {
  Container,
  ContainerDetail,
  Image,
  OnNode,
  PodSandbox,
  ResourceDelta,
} from '../../../../shared/model';
import type { ContainerEvent } from '../../base/cri';
import type { RowTable } from './rows';

export interface RowTables {
  readonly pods: RowTable<PodSandbox>;
  readonly containers: RowTable<Container>;
  readonly images: RowTable<Image>;
}

/** The changes of one batch, as one delta: the last word about a row wins. */
export class ChangeSet {
  private readonly pods = new Map<string, OnNode<PodSandbox> | undefined>();
  private readonly containers = new Map<string, OnNode<Container> | undefined>();

  constructor(private readonly nodeId: string) {}

  putPod(tables: RowTables, row: OnNode<PodSandbox>): void {
    if (tables.pods.put(row)) this.pods.set(row.id, row);
  }

  removePod(tables: RowTables, id: string): void {
    if (tables.pods.delete(id)) this.pods.set(id, undefined);
  }

  /** True when the row is new or moved. */
  putContainer(tables: RowTables, row: OnNode<Container>): boolean {
    const moved = tables.containers.put(row);
    if (moved) this.containers.set(row.id, row);
    return moved;
  }

  removeContainer(tables: RowTables, id: string): void {
    if (tables.containers.delete(id)) this.containers.set(id, undefined);
  }

  /** The delta to send, or undefined when nothing moved. */
  delta(): ResourceDelta | undefined {
    if (this.pods.size === 0 && this.containers.size === 0) return undefined;
    const split = <T>(changes: Map<string, T | undefined>) => ({
      upserted: [...changes.values()].filter((row): row is T => row !== undefined),
      removed: [...changes].filter(([, row]) => row === undefined).map(([id]) => id),
    });
    return {
      nodeId: this.nodeId,
      reset: false,
      pods: split(this.pods),
      containers: split(this.containers),
      images: { upserted: [], removed: [] },
      updatedAt: Date.now(),
    };
  }
}

export interface AppliedEvents {
  readonly changes: ChangeSet;
  /** Containers the events named that the watcher has not seen: to be read alone. */
  readonly unknownContainers: Set<string>;
  readonly unknownPods: Set<string>;
  /** The statuses the events carried of the containers they changed or named anew. */
  readonly statuses: ContainerDetail[];
}

export function applyEvents(
  tables: RowTables,
  events: readonly ContainerEvent[],
  nodeId: string,
): AppliedEvents {
  const changes = new ChangeSet(nodeId);
  const unknownContainers = new Set<string>();
  const unknownPods = new Set<string>();
  const statuses: ContainerDetail[] = [];
  for (const event of events) {
    const id = event.containerId;
    // A sandbox's own events (containerd sends them as container events) name the pod.
    const aboutPod = event.pod?.id === id || (tables.pods.has(id) && !tables.containers.has(id));
    if (event.type === 'deleted') {
      if (aboutPod) {
        changes.removePod(tables, id);
        unknownPods.delete(id);
      } else {
        changes.removeContainer(tables, id);
        unknownContainers.delete(id);
      }
    }
    const pod = event.pod;
    if (pod !== undefined && !(event.type === 'deleted' && aboutPod)) {
      const before = tables.pods.get(pod.id);
      if (before !== undefined) changes.putPod(tables, { ...before, state: pod.state });
      else unknownPods.add(pod.id);
    }
    let named = false;
    for (const status of event.containers) {
      if (status.id === id) named = true;
      if (event.type === 'deleted' && status.id === id) continue;
      const before = tables.containers.get(status.id);
      if (before === undefined) {
        unknownContainers.add(status.id);
        statuses.push(status);
      } else if (changes.putContainer(tables, { ...before, state: status.state })) {
        statuses.push(status);
      }
    }
    // An event without its container's status (some runtimes leave it out): read it.
    if (!named && !aboutPod && event.type !== 'deleted') unknownContainers.add(id);
  }
  return { changes, unknownContainers, unknownPods, statuses };
}
