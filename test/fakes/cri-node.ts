/**
 * A fake CRI node: a real gRPC server (RuntimeService and ImageService, from the same
 * descriptor the app is built with) on a unix socket, holding pods, containers and images
 * in memory. For what the lab's runtimes can't give a test or a bench:
 *
 * - many nodes at once (a fleet of 500 in one process);
 * - churn on a timer: every `churnMs` (a random pick in the range) one container changes,
 *   as on a busy node: a running one stops, or an exited one is replaced by its next
 *   attempt (deleted, created, started), each change sent on GetContainerEvents with the
 *   pod's status and its containers' statuses, as containerd 2 sends them;
 * - a frozen runtime: `freeze()` keeps the socket open and the HTTP/2 connection up, but
 *   answers nothing (every call waits, the event stream goes silent), as a runtime that is
 *   stopped (SIGSTOP) or deadlocked; `thaw()` answers what waited, in order.
 *
 * Methods a node does not have (Exec, Attach, PortForward, metrics…) answer UNIMPLEMENTED,
 * as grpc-js does for any method without a handler; `events: false` makes
 * GetContainerEvents one of them (containerd 1.6).
 */
import * as grpc from '@grpc/grpc-js';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type {
  ContainerEventResponse,
  ContainerFilter__Output,
  ContainerStatsFilter__Output,
  ContainerStatus,
  Container as CriContainer,
  Image as CriImage,
  PodSandbox as CriPodSandbox,
  PodSandboxFilter__Output,
  PodSandboxStatus,
} from '../../proto/gen';
import { criServices } from '../../electron/core/base/cri/services';

export interface FakeCriNodeOptions {
  /** The unix socket to listen on (its directory is created). */
  readonly socketPath: string;
  /** A name that ids and pod names are made from, so that nodes differ. */
  readonly name?: string;
  readonly pods?: number;
  /** Containers in all, spread evenly over the pods. */
  readonly containers?: number;
  readonly images?: number;
  /** Whether GetContainerEvents is served (else UNIMPLEMENTED, as containerd 1.6). */
  readonly events?: boolean;
  /** One container changes every [min, max] ms; absent: only `change()` changes anything. */
  readonly churnMs?: readonly [number, number];
  readonly runtimeName?: string;
  readonly runtimeVersion?: string;
}

/** One change the node made, for measuring how long it takes to be seen. */
export interface FakeChange {
  readonly containerId: string;
  readonly state: 'running' | 'exited' | 'removed';
  /** Wall-clock time of the change, ms since the epoch (fractional). */
  readonly at: number;
}

type ContainerStateName = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED';

interface FakeContainer {
  readonly id: string;
  readonly podId: string;
  readonly name: string;
  readonly attempt: number;
  readonly image: string;
  readonly imageRef: string;
  state: ContainerStateName;
  readonly createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  readonly labels: Record<string, string>;
}

interface FakePod {
  readonly id: string;
  readonly name: string;
  readonly uid: string;
  readonly namespace: string;
  state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  readonly createdAt: bigint;
  readonly labels: Record<string, string>;
  readonly ip: string;
}

interface FakeImage {
  readonly id: string;
  readonly tag: string;
  readonly size: number;
}

type EventStream = grpc.ServerWritableStream<unknown, ContainerEventResponse>;

/** Wall clock in nanoseconds (as the CRI carries time), with sub-millisecond precision. */
function nowNanos(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
}

function hex(seed: string, length = 64): string {
  // Deterministic ids per node and index, shaped like a runtime's (64 hex digits).
  let h = 0x811c9dc5;
  let out = '';
  while (out.length < length) {
    for (let i = 0; i < seed.length; i += 1) {
      h ^= seed.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    out += h.toString(16).padStart(8, '0');
    seed += out.length.toString();
  }
  return out.slice(0, length);
}

function matchesLabels(labels: Record<string, string>, selector: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

function notFound(what: string): grpc.ServiceError {
  return Object.assign(new Error(`${what} not found`), {
    code: grpc.status.NOT_FOUND,
    details: `${what} not found`,
    metadata: new grpc.Metadata(),
  });
}

export class FakeCriNode implements AsyncDisposable {
  /** Calls answered so far, by method (for tests that count what the client asked). */
  readonly calls = new Map<string, number>();
  readonly endpoint: string;
  private readonly pods = new Map<string, FakePod>();
  private readonly containers = new Map<string, FakeContainer>();
  private readonly images = new Map<string, FakeImage>();
  private readonly streams = new Set<EventStream>();
  private readonly changeListeners = new Set<(change: FakeChange) => void>();
  /** Calls that arrived while frozen, answered on thaw. */
  private parked: (() => void)[] = [];
  private frozenNow = false;
  private churnTimer: NodeJS.Timeout | undefined;
  private churnPaused = false;
  private serial = 0;
  private server: grpc.Server | undefined;

  private constructor(private readonly options: FakeCriNodeOptions) {
    this.endpoint = `unix://${options.socketPath}`;
    this.populate();
  }

  /** Builds the node's contents and starts serving on its socket. */
  static async start(options: FakeCriNodeOptions): Promise<FakeCriNode> {
    const node = new FakeCriNode(options);
    await node.listen();
    return node;
  }

  get frozen(): boolean {
    return this.frozenNow;
  }

  get containerCount(): number {
    return this.containers.size;
  }

  /** Stops answering: calls wait, the event stream and the churn stop (see the top). */
  freeze(): void {
    this.frozenNow = true;
    this.stopChurn();
  }

  /** Answers what waited, and goes on as before. */
  thaw(): void {
    this.frozenNow = false;
    const parked = this.parked;
    this.parked = [];
    for (const answer of parked) answer();
    this.scheduleChurn();
  }

  /** Stops the churn (the node answers as before): its containers stay as they are. */
  pauseChurn(): void {
    this.churnPaused = true;
    this.stopChurn();
  }

  resumeChurn(): void {
    this.churnPaused = false;
    this.scheduleChurn();
  }

  /** Hears every change the node makes. */
  onChange(listener: (change: FakeChange) => void): { dispose(): void } {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  /**
   * One change now, as the churn makes them: a running container stops, or an exited one
   * is replaced by its next attempt. Returns what changed.
   */
  change(): FakeChange {
    const all = [...this.containers.values()];
    const picked = all[Math.floor(Math.random() * all.length)];
    if (picked === undefined) throw new Error('The fake node has no containers.');
    return picked.state === 'CONTAINER_RUNNING' ? this.stopOne(picked) : this.replace(picked);
  }

  /** Closes the socket at once, as a runtime that crashed; `start` again to restart. */
  async stop(): Promise<void> {
    this.stopChurn();
    for (const stream of this.streams) stream.destroy();
    this.streams.clear();
    this.parked = [];
    const server = this.server;
    this.server = undefined;
    server?.forceShutdown();
    await rm(this.options.socketPath, { force: true });
  }

  /** Serves again on the same socket, with the same contents (a restarted runtime). */
  async restart(): Promise<void> {
    await this.stop();
    this.frozenNow = false;
    await this.listen();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  // ---- contents ---------------------------------------------------------------------

  private get nodeName(): string {
    return this.options.name ?? 'fake';
  }

  private populate(): void {
    const podCount = this.options.pods ?? 20;
    const containerCount = this.options.containers ?? 100;
    const imageCount = this.options.images ?? 30;
    const started = nowNanos() - 3_600_000_000_000n;
    for (let i = 0; i < imageCount; i += 1) {
      const id = `sha256:${hex(`${this.nodeName}/image/${i}`)}`;
      this.images.set(id, {
        id,
        tag: `registry.example/fleet/app-${i}:1.${i}`,
        size: 5_000_000 + i * 1000,
      });
    }
    const imageIds = [...this.images.keys()];
    for (let p = 0; p < podCount; p += 1) {
      const id = hex(`${this.nodeName}/pod/${p}`);
      this.pods.set(id, {
        id,
        name: `${this.nodeName}-pod-${p}`,
        uid: hex(`${this.nodeName}/uid/${p}`, 32),
        namespace: p % 3 === 0 ? 'kube-system' : 'default',
        state: 'SANDBOX_READY',
        createdAt: started + BigInt(p) * 1_000_000n,
        labels: { app: `app-${p}` },
        ip: `10.${(p >> 8) & 255}.${p & 255}.2`,
      });
    }
    const podIds = [...this.pods.keys()];
    for (let c = 0; c < containerCount; c += 1) {
      const podId = podIds[c % podIds.length];
      const imageId = imageIds[c % Math.max(1, imageIds.length)] ?? 'sha256:none';
      if (podId === undefined) break;
      this.addContainer({
        podId,
        name: `c${Math.floor(c / podIds.length)}`,
        attempt: 0,
        imageRef: imageId,
        image: this.images.get(imageId)?.tag ?? 'none',
        createdAt: started + BigInt(c) * 1_000_000n,
        running: c % 10 !== 0,
      });
    }
  }

  private addContainer(spec: {
    podId: string;
    name: string;
    attempt: number;
    image: string;
    imageRef: string;
    createdAt: bigint;
    running: boolean;
  }): FakeContainer {
    this.serial += 1;
    const container: FakeContainer = {
      id: hex(`${this.nodeName}/container/${spec.podId}/${spec.name}/${spec.attempt}`),
      podId: spec.podId,
      name: spec.name,
      attempt: spec.attempt,
      image: spec.image,
      imageRef: spec.imageRef,
      state: spec.running ? 'CONTAINER_RUNNING' : 'CONTAINER_EXITED',
      createdAt: spec.createdAt,
      startedAt: spec.createdAt + 1_000_000n,
      finishedAt: spec.running ? 0n : spec.createdAt + 2_000_000_000n,
      exitCode: spec.running ? 0 : 1,
      labels: { 'io.kubernetes.container.name': spec.name },
    };
    this.containers.set(container.id, container);
    return container;
  }

  private stopOne(container: FakeContainer): FakeChange {
    const at = nowNanos();
    container.state = 'CONTAINER_EXITED';
    container.finishedAt = at;
    container.exitCode = 137;
    this.send(container.id, 'CONTAINER_STOPPED_EVENT', container.podId, at);
    return this.told({ containerId: container.id, state: 'exited', at: Number(at) / 1e6 });
  }

  /** The kubelet's restart: the exited container goes, its next attempt comes and starts. */
  private replace(old: FakeContainer): FakeChange {
    const at = nowNanos();
    this.containers.delete(old.id);
    this.send(old.id, 'CONTAINER_DELETED_EVENT', old.podId, at);
    this.told({ containerId: old.id, state: 'removed', at: Number(at) / 1e6 });
    const next = this.addContainer({
      podId: old.podId,
      name: old.name,
      attempt: old.attempt + 1,
      image: old.image,
      imageRef: old.imageRef,
      createdAt: at,
      running: true,
    });
    next.startedAt = at;
    this.send(next.id, 'CONTAINER_CREATED_EVENT', next.podId, at);
    this.send(next.id, 'CONTAINER_STARTED_EVENT', next.podId, at);
    return this.told({ containerId: next.id, state: 'running', at: Number(at) / 1e6 });
  }

  private told(change: FakeChange): FakeChange {
    for (const listener of this.changeListeners) listener(change);
    return change;
  }

  private scheduleChurn(): void {
    const range = this.options.churnMs;
    if (range === undefined || this.churnTimer !== undefined || this.frozenNow) return;
    if (this.churnPaused) return;
    if (this.server === undefined) return;
    const [min, max] = range;
    this.churnTimer = setTimeout(
      () => {
        this.churnTimer = undefined;
        this.change();
        this.scheduleChurn();
      },
      min + Math.random() * (max - min),
    );
    this.churnTimer.unref();
  }

  private stopChurn(): void {
    if (this.churnTimer !== undefined) clearTimeout(this.churnTimer);
    this.churnTimer = undefined;
  }

  // ---- messages ---------------------------------------------------------------------

  private criPod(pod: FakePod): CriPodSandbox {
    return {
      id: pod.id,
      metadata: { name: pod.name, uid: pod.uid, namespace: pod.namespace, attempt: 0 },
      state: pod.state,
      createdAt: pod.createdAt.toString(),
      labels: pod.labels,
      annotations: {},
      runtimeHandler: '',
    };
  }

  private podStatus(pod: FakePod): PodSandboxStatus {
    return {
      ...this.criPod(pod),
      network: { ip: pod.ip, additionalIps: [] },
      linux: {
        namespaces: { options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD', targetId: '' } },
      },
    };
  }

  private criContainer(container: FakeContainer): CriContainer {
    return {
      id: container.id,
      podSandboxId: container.podId,
      metadata: { name: container.name, attempt: container.attempt },
      image: { image: container.image, userSpecifiedImage: container.image },
      imageRef: container.imageRef,
      imageId: container.imageRef,
      state: container.state,
      createdAt: container.createdAt.toString(),
      labels: container.labels,
      annotations: {},
    };
  }

  private containerStatus(container: FakeContainer): ContainerStatus {
    return {
      id: container.id,
      metadata: { name: container.name, attempt: container.attempt },
      state: container.state,
      createdAt: container.createdAt.toString(),
      startedAt: container.startedAt.toString(),
      finishedAt: container.finishedAt.toString(),
      exitCode: container.exitCode,
      image: { image: container.image, userSpecifiedImage: container.image },
      imageRef: container.imageRef,
      imageId: container.imageRef,
      reason: container.state === 'CONTAINER_EXITED' ? 'Error' : '',
      message: '',
      labels: container.labels,
      annotations: {},
      mounts: [],
      logPath: `/var/log/pods/${container.podId}/${container.name}/${container.attempt}.log`,
    };
  }

  private criImage(image: FakeImage): CriImage {
    return {
      id: image.id,
      repoTags: [image.tag],
      repoDigests: [],
      size: image.size,
      username: '',
      pinned: false,
    };
  }

  private send(containerId: string, type: string, podId: string, at: bigint): void {
    if (this.streams.size === 0) return;
    const pod = this.pods.get(podId);
    const message: ContainerEventResponse = {
      containerId,
      containerEventType: type as ContainerEventResponse['containerEventType'],
      createdAt: at.toString(),
      podSandboxStatus: pod === undefined ? null : this.podStatus(pod),
      containersStatuses: [...this.containers.values()]
        .filter((container) => container.podId === podId)
        .map((container) => this.containerStatus(container)),
    };
    for (const stream of this.streams) stream.write(message);
  }

  // ---- serving ----------------------------------------------------------------------

  private async listen(): Promise<void> {
    await mkdir(dirname(this.options.socketPath), { recursive: true });
    await rm(this.options.socketPath, { force: true });
    const server = new grpc.Server();
    const { runtime, image } = criServices();
    server.addService(runtime, this.runtimeHandlers());
    server.addService(image, this.imageHandlers());
    await new Promise<void>((resolve, reject) => {
      server.bindAsync(this.endpoint, grpc.ServerCredentials.createInsecure(), (error) =>
        error ? reject(error) : resolve(),
      );
    });
    this.server = server;
    this.scheduleChurn();
  }

  /** A unary handler that counts, and waits while the node is frozen. */
  private unary<Req, Res>(
    method: string,
    answer: (request: Req) => Res | grpc.ServiceError,
  ): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      const respond = (): void => {
        if (call.cancelled) return;
        this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
        const result = answer(call.request);
        if (result instanceof Error) callback(result);
        else callback(null, result);
      };
      if (this.frozenNow) this.parked.push(respond);
      else respond();
    };
  }

  private runtimeHandlers(): grpc.UntypedServiceImplementation {
    const handlers: grpc.UntypedServiceImplementation = {
      Version: this.unary('Version', () => ({
        version: '0.1.0',
        runtimeName: this.options.runtimeName ?? 'fake-cri',
        runtimeVersion: this.options.runtimeVersion ?? '1.0.0',
        runtimeApiVersion: 'v1',
      })),
      Status: this.unary('Status', () => ({
        status: {
          conditions: [
            { type: 'RuntimeReady', status: true, reason: '', message: '' },
            { type: 'NetworkReady', status: true, reason: '', message: '' },
          ],
        },
        info: {},
        runtimeHandlers: [{ name: '', features: {} }],
      })),
      ListPodSandbox: this.unary(
        'ListPodSandbox',
        (request: { filter: PodSandboxFilter__Output | null }) => {
          const filter = request.filter;
          const items = [...this.pods.values()]
            .filter((pod) => !filter?.id || pod.id === filter.id)
            .filter((pod) => !filter?.state || pod.state === filter.state.state)
            .filter((pod) => matchesLabels(pod.labels, filter?.labelSelector ?? {}))
            .map((pod) => this.criPod(pod));
          return { items };
        },
      ),
      PodSandboxStatus: this.unary('PodSandboxStatus', (request: { podSandboxId: string }) => {
        const pod = this.pods.get(request.podSandboxId);
        if (pod === undefined) return notFound(`pod sandbox ${request.podSandboxId}`);
        return { status: this.podStatus(pod), info: {}, containersStatuses: [] };
      }),
      ListContainers: this.unary(
        'ListContainers',
        (request: { filter: ContainerFilter__Output | null }) => {
          const filter = request.filter;
          const containers = [...this.containers.values()]
            .filter((container) => !filter?.id || container.id === filter.id)
            .filter((container) => !filter?.podSandboxId || container.podId === filter.podSandboxId)
            .filter((container) => !filter?.state || container.state === filter.state.state)
            .filter((container) => matchesLabels(container.labels, filter?.labelSelector ?? {}))
            .map((container) => this.criContainer(container));
          return { containers };
        },
      ),
      ContainerStatus: this.unary('ContainerStatus', (request: { containerId: string }) => {
        const container = this.containers.get(request.containerId);
        if (container === undefined) return notFound(`container ${request.containerId}`);
        return { status: this.containerStatus(container), info: {} };
      }),
      StopContainer: this.unary('StopContainer', (request: { containerId: string }) => {
        const container = this.containers.get(request.containerId);
        if (container === undefined) return notFound(`container ${request.containerId}`);
        if (container.state === 'CONTAINER_RUNNING') this.stopOne(container);
        return {};
      }),
      RemoveContainer: this.unary('RemoveContainer', (request: { containerId: string }) => {
        const container = this.containers.get(request.containerId);
        if (container !== undefined) {
          const at = nowNanos();
          this.containers.delete(container.id);
          this.send(container.id, 'CONTAINER_DELETED_EVENT', container.podId, at);
          this.told({ containerId: container.id, state: 'removed', at: Number(at) / 1e6 });
        }
        return {};
      }),
      // Filtered as the runtimes filter: the capability probe asks for a label nothing has.
      ListContainerStats: this.unary(
        'ListContainerStats',
        (request: { filter: ContainerStatsFilter__Output | null }) => ({
          stats: [...this.containers.values()]
            .filter((container) => container.state === 'CONTAINER_RUNNING')
            .filter((container) => !request.filter?.id || container.id === request.filter.id)
            .filter(
              (container) =>
                !request.filter?.podSandboxId || container.podId === request.filter.podSandboxId,
            )
            .filter((container) =>
              matchesLabels(container.labels, request.filter?.labelSelector ?? {}),
            )
            .map((container) => {
              const at = nowNanos().toString();
              return {
                attributes: {
                  id: container.id,
                  metadata: { name: container.name, attempt: container.attempt },
                  labels: container.labels,
                  annotations: {},
                },
                cpu: {
                  timestamp: at,
                  usageCoreNanoSeconds: {
                    value: ((nowNanos() - container.startedAt) / 100n).toString(),
                  },
                },
                memory: { timestamp: at, workingSetBytes: { value: 8_000_000 } },
              };
            }),
        }),
      ),
    };
    if (this.options.events !== false) {
      handlers.GetContainerEvents = (stream: EventStream) => {
        this.calls.set('GetContainerEvents', (this.calls.get('GetContainerEvents') ?? 0) + 1);
        this.streams.add(stream);
        const drop = (): void => {
          this.streams.delete(stream);
        };
        stream.on('cancelled', drop);
        stream.on('close', drop);
        stream.on('error', drop);
      };
    }
    return handlers;
  }

  private imageHandlers(): grpc.UntypedServiceImplementation {
    return {
      ListImages: this.unary('ListImages', () => ({
        images: [...this.images.values()].map((image) => this.criImage(image)),
      })),
      ImageStatus: this.unary('ImageStatus', (request: { image: { image: string } | null }) => {
        const wanted = request.image?.image ?? '';
        const image = [...this.images.values()].find(
          (candidate) => candidate.id === wanted || candidate.tag === wanted,
        );
        return { image: image === undefined ? null : this.criImage(image), info: {} };
      }),
      RemoveImage: this.unary('RemoveImage', (request: { image: { image: string } | null }) => {
        const wanted = request.image?.image ?? '';
        for (const image of this.images.values()) {
          if (image.id === wanted || image.tag === wanted) this.images.delete(image.id);
        }
        return {};
      }),
      PullImage: this.unary('PullImage', (request: { image: { image: string } | null }) => {
        const tag = request.image?.image ?? '';
        const id = `sha256:${hex(`${this.nodeName}/pulled/${tag}`)}`;
        this.images.set(id, { id, tag, size: 1_000_000 });
        return { imageRef: id };
      }),
    };
  }
}

/**
 * A fleet: `count` fake nodes with sockets `<dir>/node-<i>.sock`, started with bounded
 * concurrency (binding 500 servers at once is needlessly bursty).
 */
export async function startFleet(
  dir: string,
  count: number,
  options: Omit<FakeCriNodeOptions, 'socketPath' | 'name'> = {},
): Promise<FakeCriNode[]> {
  const nodes: FakeCriNode[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, (_, j) =>
      FakeCriNode.start({
        ...options,
        socketPath: `${dir}/node-${i + j}.sock`,
        name: `node-${i + j}`,
      }),
    );
    nodes.push(...(await Promise.all(batch)));
  }
  return nodes;
}
