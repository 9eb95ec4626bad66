import { AppError } from '../../../../../shared/errors';
import { Emitter, type Event } from '../../../../../shared/event';
import { toDisposable, type Disposable } from '../../../../../shared/lifecycle';
import type {
  Capabilities,
  CgroupDriverInfo,
  Container,
  Image,
  PodSandbox,
  RuntimeInfo,
} from '../../../../../shared/model';
import type { DiscoveryResult } from '../../../base/connect';
import { CapabilityTracker, type ContainerEvent } from '../../../base/cri';
import type { NodeClient } from '..';

export const fakeRuntime: RuntimeInfo = {
  runtimeName: 'fakerd',
  runtimeVersion: '1.0.0',
  runtimeApiVersion: 'v1',
  apiVersion: '0.1.0',
  conditions: [],
  handlers: [],
};

export function fakePod(id: string, overrides: Partial<PodSandbox> = {}): PodSandbox {
  return {
    id,
    name: `pod-${id}`,
    namespace: 'default',
    uid: `uid-${id}`,
    attempt: 0,
    state: 'ready',
    createdAt: 1,
    labels: {},
    annotations: {},
    runtimeHandler: '',
    ...overrides,
  };
}

export function fakeContainer(
  id: string,
  podSandboxId: string,
  overrides: Partial<Container> = {},
): Container {
  return {
    id,
    podSandboxId,
    name: `c-${id}`,
    attempt: 0,
    image: 'busybox',
    imageRef: 'sha256:b',
    state: 'running',
    createdAt: 1,
    labels: {},
    annotations: {},
    ...overrides,
  };
}

export function fakeImage(id: string): Image {
  return { id, repoTags: [`${id}:latest`], repoDigests: [], sizeBytes: 1, pinned: false };
}

type Observer = Parameters<NodeClient['watchContainerEvents']>[0];

/**
 * An in-memory runtime behind the NodeClient interface: lists come from mutable arrays,
 * container events are emitted by the test, failures are switched on and off.
 */
export class FakeNodeClient implements NodeClient {
  readonly capabilities = new CapabilityTracker();
  pods: PodSandbox[] = [];
  containers: Container[] = [];
  images: Image[] = [];
  /** When set, every call fails with it. */
  failure: AppError | undefined;
  supportsEvents = true;
  disposed = false;
  listCalls = 0;
  /** What Version and Status report: change it to play an upgraded runtime. */
  runtime: RuntimeInfo = fakeRuntime;
  /** How many times the connection was swapped for a new one. */
  reconnects = 0;
  private readonly observers = new Set<Observer>();
  private readonly dropped = new Emitter<void>();
  readonly onDidDrop: Event<void> = this.dropped.event;
  readonly calls: string[] = [];

  constructor(readonly endpoint: string) {}

  get eventWatchers(): number {
    return this.observers.size;
  }

  emit(event: Partial<ContainerEvent> = {}): void {
    const full: ContainerEvent = {
      containerId: 'x',
      type: 'created',
      createdAt: 0,
      containers: [],
      ...event,
    };
    for (const observer of [...this.observers]) observer.next(full);
  }

  failEvents(error: AppError): void {
    for (const observer of [...this.observers]) observer.error(error);
    this.observers.clear();
  }

  /** Ends every event stream with OK, as a runtime with its events switched off does. */
  completeEvents(): void {
    for (const observer of [...this.observers]) observer.complete();
    this.observers.clear();
  }

  /** How many times watchContainerEvents was called. */
  eventSubscriptions = 0;

  private check(name: string): Promise<void> {
    this.calls.push(name);
    return this.failure === undefined ? Promise.resolve() : Promise.reject(this.failure);
  }

  /** Plays the runtime closing the connection (it stopped or restarted). */
  drop(): void {
    this.dropped.fire();
  }

  reconnect(): void {
    this.reconnects++;
    this.calls.push('reconnect');
  }

  async version(): Promise<Awaited<ReturnType<NodeClient['version']>>> {
    await this.check('version');
    const { runtimeName, runtimeVersion, runtimeApiVersion, apiVersion } = this.runtime;
    return { runtimeName, runtimeVersion, runtimeApiVersion, apiVersion };
  }

  async runtimeInfo(): Promise<RuntimeInfo> {
    await this.check('runtimeInfo');
    return this.runtime;
  }

  async cgroupDriver(): Promise<CgroupDriverInfo> {
    await this.check('cgroupDriver');
    return { driver: 'cgroupfs', from: 'RuntimeConfig' };
  }

  async probeCapabilities(): Promise<Capabilities> {
    await this.check('probeCapabilities');
    this.capabilities.set('containerEvents', this.supportsEvents ? 'supported' : 'unsupported');
    return this.capabilities.snapshot();
  }

  async listPods(filter: { id?: string } = {}): Promise<PodSandbox[]> {
    if (filter.id === undefined) this.listCalls++;
    await this.check(filter.id === undefined ? 'listPods' : 'listPods(id)');
    return this.pods
      .filter((pod) => filter.id === undefined || pod.id === filter.id)
      .map((pod) => ({ ...pod }));
  }

  async listContainers(filter: { id?: string } = {}): Promise<Container[]> {
    await this.check(filter.id === undefined ? 'listContainers' : 'listContainers(id)');
    return this.containers
      .filter((container) => filter.id === undefined || container.id === filter.id)
      .map((container) => ({ ...container }));
  }

  async listImages(): Promise<Image[]> {
    await this.check('listImages');
    return this.images.map((image) => ({ ...image }));
  }

  watchContainerEvents(observer: Observer): Disposable {
    this.eventSubscriptions += 1;
    if (!this.supportsEvents) {
      queueMicrotask(() =>
        observer.error(new AppError({ code: 'unimplemented', message: 'no events' })),
      );
      return toDisposable(() => undefined);
    }
    this.observers.add(observer);
    return toDisposable(() => this.observers.delete(observer));
  }

  private unsupported(name: string): Promise<never> {
    this.calls.push(name);
    return Promise.reject(new AppError({ code: 'unimplemented', message: `${name} is not faked` }));
  }

  podStatus: NodeClient['podStatus'] = () => this.unsupported('podStatus');
  containerStatus: NodeClient['containerStatus'] = () => this.unsupported('containerStatus');
  execSync: NodeClient['execSync'] = () => this.unsupported('execSync');
  exec: NodeClient['exec'] = () => this.unsupported('exec');
  attach: NodeClient['attach'] = () => this.unsupported('attach');
  portForward: NodeClient['portForward'] = () => this.unsupported('portForward');
  reopenContainerLog: NodeClient['reopenContainerLog'] = () =>
    this.unsupported('reopenContainerLog');
  listContainerStats: NodeClient['listContainerStats'] = () =>
    this.unsupported('listContainerStats');
  listPodStats: NodeClient['listPodStats'] = () => this.unsupported('listPodStats');
  podStats: NodeClient['podStats'] = () => this.unsupported('podStats');
  podStatsHazard: NodeClient['podStatsHazard'] = () => Promise.resolve(undefined);
  async imageStatus(image: string): Promise<Image | undefined> {
    await this.check(`imageStatus ${image}`);
    return this.images.find((candidate) => candidate.repoTags.includes(image));
  }
  async stopContainer(id: string): Promise<void> {
    await this.check(`stopContainer ${id}`);
    this.containers = this.containers.map((c) => (c.id === id ? { ...c, state: 'exited' } : c));
  }
  async removeContainer(id: string): Promise<void> {
    await this.check(`removeContainer ${id}`);
    this.containers = this.containers.filter((c) => c.id !== id);
  }
  /** The grace period of each stopPod call, by pod id. */
  readonly stopGraces = new Map<string, number>();
  async stopPod(id: string, gracePeriodSeconds = 0): Promise<void> {
    await this.check(`stopPod ${id}`);
    this.stopGraces.set(id, gracePeriodSeconds);
  }
  async removePod(id: string): Promise<void> {
    await this.check(`removePod ${id}`);
    this.pods = this.pods.filter((p) => p.id !== id);
    this.containers = this.containers.filter((c) => c.podSandboxId !== id);
  }
  async removeImage(ref: string): Promise<void> {
    await this.check(`removeImage ${ref}`);
    this.images = this.images.filter((i) => i.id !== ref && !i.repoTags.includes(ref));
  }
  async pullImage(image: string): Promise<string> {
    await this.check(`pullImage ${image}`);
    this.images.push({ ...fakeImage(`sha256:${image}`), repoTags: [image] });
    return `sha256:${image}`;
  }
  async runPod(config: Parameters<NodeClient['runPod']>[0]): Promise<string> {
    await this.check('runPod');
    const id = `pod${this.pods.length + 1}`;
    this.pods.push(fakePod(id, { name: config.metadata?.name ?? '' }));
    return id;
  }
  async createContainer(
    podSandboxId: string,
    config: Parameters<NodeClient['createContainer']>[1],
  ): Promise<string> {
    await this.check(`createContainer ${config.metadata?.name ?? ''}`);
    const id = `c${this.containers.length + 1}`;
    this.containers.push(fakeContainer(id, podSandboxId, { state: 'created' }));
    return id;
  }
  async startContainer(id: string): Promise<void> {
    await this.check(`startContainer ${id}`);
    this.containers = this.containers.map((c) => (c.id === id ? { ...c, state: 'running' } : c));
  }

  dispose(): void {
    this.disposed = true;
    this.observers.clear();
    this.dropped.dispose();
  }
}

/** Discovery that finds one ready runtime at `endpoint` (as CONTAINER_RUNTIME_ENDPOINT). */
export function discoverOnly(endpoint: string): () => Promise<DiscoveryResult> {
  return () =>
    Promise.resolve({
      endpoints: [
        {
          endpoint,
          imageEndpoint: endpoint,
          source: 'environment',
          origin: 'CONTAINER_RUNTIME_ENDPOINT',
          probe: { state: 'ready', info: fakeRuntime },
        },
      ],
      warnings: [],
      sources: [],
    });
}
