/**
 * One node's lifecycle, as the timeline needs it: the state last seen of each pod and
 * container, and what a ResourceDelta changed about it. The watcher's deltas already carry
 * only rows whose state moved, whether they came from runtime events or from a re-list
 * (GetContainerEvents and the consistency check both run on an events node); comparing
 * with the state last seen here makes sure each transition is recorded once, also across
 * a reset (a reconnect, a runtime that came back) and across a restart of Porthole (the
 * tracker is seeded from the recorded history).
 */
import type {
  Container,
  ContainerState,
  PodSandbox,
  PodState,
  ResourceDelta,
  TimelineEvent,
  TimelineKind,
} from '../../../../shared/model';

interface PodFacts {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  readonly state: PodState;
}

interface ContainerFacts {
  readonly id: string;
  readonly podId: string;
  readonly name: string;
  readonly attempt: number;
  readonly state: ContainerState;
}

/**
 * A transition to record. `started` and `exited` take their time (and an exit its code and
 * reason) from ContainerStatus, which the recorder reads.
 */
export interface Transition {
  readonly kind: TimelineKind;
  /** The runtime's time when the row has one for it, else the delta's. */
  readonly time: number;
  readonly podId: string;
  readonly podName: string;
  readonly namespace: string;
  readonly container?: {
    readonly id: string;
    readonly name: string;
    readonly attempt: number;
  };
}

/** Names of pods gone, kept for the containers that go with them (bounded). */
const goneNamesKept = 256;

export class NodeTracker {
  private readonly pods = new Map<string, PodFacts>();
  private readonly containers = new Map<string, ContainerFacts>();
  private readonly goneNames = new Map<string, { name: string; namespace: string }>();
  /**
   * Whether a reset has been diffed in this session. The first one takes rows with no
   * history as they are (they were there before Porthole looked); the later ones (a
   * reconnect) record every row that is new.
   */
  private watched = false;

  /** The state the history leaves each pod and container in (events oldest first). */
  seed(events: readonly TimelineEvent[]): void {
    for (const event of events) {
      if (event.containerId === undefined) {
        if (event.kind === 'pod-removed') this.forgetPod(event.podId, event);
        else
          this.pods.set(event.podId, {
            id: event.podId,
            name: event.podName,
            namespace: event.namespace,
            state: event.kind === 'pod-ready' ? 'ready' : 'notready',
          });
        continue;
      }
      if (event.kind === 'removed') {
        this.containers.delete(event.containerId);
        continue;
      }
      const state = containerStateAfter(event.kind);
      if (state === undefined) continue;
      this.containers.set(event.containerId, {
        id: event.containerId,
        podId: event.podId,
        name: event.containerName ?? '',
        attempt: event.attempt ?? 0,
        state,
      });
      this.goneNames.set(event.podId, { name: event.podName, namespace: event.namespace });
      this.trimGoneNames();
    }
  }

  apply(delta: ResourceDelta): Transition[] {
    const out: Transition[] = [];
    const time = delta.updatedAt;
    if (delta.reset) {
      const firstLook = !this.watched;
      this.watched = true;
      const pods = new Set(delta.pods.upserted.map((pod) => pod.id));
      const containers = new Set(delta.containers.upserted.map((container) => container.id));
      for (const pod of delta.pods.upserted) this.putPod(pod, time, out, firstLook);
      for (const container of delta.containers.upserted) {
        this.putContainer(container, time, out, firstLook);
      }
      for (const id of [...this.containers.keys()]) {
        if (!containers.has(id)) this.removeContainer(id, time, out);
      }
      for (const id of [...this.pods.keys()]) if (!pods.has(id)) this.removePod(id, time, out);
      return out;
    }
    for (const pod of delta.pods.upserted) this.putPod(pod, time, out, false);
    for (const container of delta.containers.upserted) {
      this.putContainer(container, time, out, false);
    }
    for (const id of delta.containers.removed) this.removeContainer(id, time, out);
    for (const id of delta.pods.removed) this.removePod(id, time, out);
    return out;
  }

  private putPod(pod: PodSandbox, time: number, out: Transition[], firstLook: boolean): void {
    const before = this.pods.get(pod.id);
    this.pods.set(pod.id, {
      id: pod.id,
      name: pod.name,
      namespace: pod.namespace,
      state: pod.state,
    });
    if (before === undefined && firstLook) return;
    if (before?.state === pod.state) return;
    const base = { podId: pod.id, podName: pod.name, namespace: pod.namespace };
    if (pod.state === 'ready') {
      out.push({ ...base, kind: 'pod-ready', time: before === undefined ? pod.createdAt : time });
    } else {
      out.push({ ...base, kind: 'pod-notready', time });
    }
  }

  private putContainer(
    container: Container,
    time: number,
    out: Transition[],
    firstLook: boolean,
  ): void {
    if (container.state === 'unknown') return;
    const before = this.containers.get(container.id);
    this.containers.set(container.id, {
      id: container.id,
      podId: container.podSandboxId,
      name: container.name,
      attempt: container.attempt,
      state: container.state,
    });
    if (before === undefined && firstLook) return;
    const from = before?.state;
    if (from === container.state) return;
    const base = {
      ...this.podNames(container.podSandboxId),
      container: { id: container.id, name: container.name, attempt: container.attempt },
    };
    if (from === undefined) out.push({ ...base, kind: 'created', time: container.createdAt });
    // Polling may first see a container already running or exited: its start is recorded
    // all the same (the recorder drops it when the runtime says it never started).
    const started = from === undefined || from === 'created' || from === 'unknown';
    if (container.state !== 'created' && started) out.push({ ...base, kind: 'started', time });
    if (container.state === 'exited') out.push({ ...base, kind: 'exited', time });
  }

  private removeContainer(id: string, time: number, out: Transition[]): void {
    const before = this.containers.get(id);
    if (before === undefined) return;
    this.containers.delete(id);
    out.push({
      ...this.podNames(before.podId),
      kind: 'removed',
      time,
      container: { id, name: before.name, attempt: before.attempt },
    });
  }

  private removePod(id: string, time: number, out: Transition[]): void {
    const before = this.pods.get(id);
    if (before === undefined) return;
    this.forgetPod(id, before);
    out.push({ kind: 'pod-removed', time, ...this.podNames(id) });
  }

  private forgetPod(id: string, names: { podName?: string; name?: string; namespace: string }) {
    this.pods.delete(id);
    this.goneNames.set(id, { name: names.podName ?? names.name ?? '', namespace: names.namespace });
    this.trimGoneNames();
  }

  private podNames(podId: string): { podId: string; podName: string; namespace: string } {
    const pod = this.pods.get(podId) ?? this.goneNames.get(podId);
    return { podId, podName: pod?.name ?? '', namespace: pod?.namespace ?? '' };
  }

  private trimGoneNames(): void {
    while (this.goneNames.size > goneNamesKept) {
      const oldest = this.goneNames.keys().next().value;
      if (oldest === undefined) return;
      this.goneNames.delete(oldest);
    }
  }
}

function containerStateAfter(kind: TimelineKind): ContainerState | undefined {
  switch (kind) {
    case 'created':
      return 'created';
    case 'started':
      return 'running';
    case 'exited':
      return 'exited';
    case 'removed':
    case 'pod-ready':
    case 'pod-notready':
    case 'pod-removed':
      return undefined;
  }
}
