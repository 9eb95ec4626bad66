import type {
  AttachRequest,
  AuthConfig,
  ContainerConfig,
  ExecRequest,
  PodSandboxConfig,
  PortForwardRequest,
} from '../../../../proto/gen';
import { AppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import type {
  Capabilities,
  Container,
  ContainerDetail,
  ContainerFilter,
  ContainerStats,
  ExecSyncResult,
  Image,
  ImageFilesystemUsage,
  PodFilter,
  PodSandbox,
  PodSandboxDetail,
  PodStats,
  RuntimeConfigInfo,
  CgroupDriverInfo,
  RuntimeInfo,
} from '../../../../shared/model';
import { CapabilityTracker } from './capabilities';
import {
  CriChannel,
  type AnyMethod,
  type CallOptions,
  type RequestOf,
  type ResponseOf,
} from './channel';
import { parseEndpoint } from './endpoint';
import { toContainerEvent, type ContainerEvent } from './events';
import {
  containerStateFilter,
  nanosToMillis,
  parseVerboseInfo,
  podStateFilter,
  toContainer,
  toContainerDetail,
  toContainerStats,
  toImage,
  toPodSandbox,
  toPodSandboxDetail,
  toPodStats,
  toRuntimeInfo,
} from './mappers';
import { podStatsHazard, type RuntimeIdentity } from './hazards';
import { criServices, type CriServiceDefinitions } from './services';
import { logger } from '../log';

const criLog = logger('cri');

export interface CriClientOptions {
  /** Runtime endpoint, e.g. `unix:///run/containerd/containerd.sock`. */
  readonly endpoint: string;
  /** Image service endpoint; the runtime endpoint when not given. */
  readonly imageEndpoint?: string;
  /** Default deadline for every call, in milliseconds. */
  readonly timeoutMs?: number;
}

export interface VerboseOption extends CallOptions {
  /** Ask the runtime for its verbose `info` (spec, pid, snapshotter…). */
  readonly verbose?: boolean;
}

/** A streaming endpoint from Exec, Attach or PortForward: single use, valid ~1 minute. */
export interface StreamUrl {
  readonly url: string;
}

export const defaultCriTimeoutMs = 10_000;

/** An event stream still open this long is a runtime that serves events. */
const eventsProofMs = 1000;
/** A label no pod or container carries: stats lists filtered by it are empty. */
const probeLabel = 'porthole.io/capability-probe';

/**
 * Typed access to one node's RuntimeService and ImageService. One instance per endpoint,
 * each with one gRPC channel (shared when both services live on the same socket). Every
 * call has a deadline and may be cancelled; failures are AppErrors; answers are domain
 * models. Optional features are tracked in `capabilities` as calls prove them.
 */
export class CriClient implements Disposable {
  readonly capabilities = new CapabilityTracker();
  private readonly services: CriServiceDefinitions = criServices();
  /** What the last Version answer said: some runtime versions must not get some calls. */
  private identity?: RuntimeIdentity;

  private constructor(
    private readonly runtimeChannel: CriChannel,
    private readonly imageChannel: CriChannel,
  ) {}

  /** Parses the endpoints (throwing an AppError if unsupported); connects lazily. */
  static create(options: CriClientOptions): CriClient {
    const timeoutMs = options.timeoutMs ?? defaultCriTimeoutMs;
    const runtime = parseEndpoint(options.endpoint);
    const image = options.imageEndpoint ? parseEndpoint(options.imageEndpoint) : runtime;
    const runtimeChannel = new CriChannel(runtime, timeoutMs);
    const imageChannel =
      image.path === runtime.path ? runtimeChannel : new CriChannel(image, timeoutMs);
    return new CriClient(runtimeChannel, imageChannel);
  }

  get endpoint(): string {
    return this.runtimeChannel.endpoint.uri;
  }

  get imageEndpoint(): string {
    return this.imageChannel.endpoint.uri;
  }

  // ---- runtime ------------------------------------------------------------------

  async version(
    options?: CallOptions,
  ): Promise<
    Pick<RuntimeInfo, 'runtimeName' | 'runtimeVersion' | 'runtimeApiVersion' | 'apiVersion'>
  > {
    const response = await this.runtime('Version', { version: 'v1' }, options);
    this.identity = { runtimeName: response.runtimeName, runtimeVersion: response.runtimeVersion };
    return {
      runtimeName: response.runtimeName,
      runtimeVersion: response.runtimeVersion,
      runtimeApiVersion: response.runtimeApiVersion,
      apiVersion: response.version,
    };
  }

  /**
   * Version and Status together: what a node card shows. The status is verbose for what
   * only the runtime's configuration says (containerd 1.6's sandbox image).
   */
  async runtimeInfo(options?: CallOptions): Promise<RuntimeInfo> {
    const version = await this.runtime('Version', { version: 'v1' }, options);
    this.identity = { runtimeName: version.runtimeName, runtimeVersion: version.runtimeVersion };
    const status = await this.runtime('Status', { verbose: true }, options);
    return toRuntimeInfo(version, status);
  }

  /** The runtime's verbose status info (its configuration, CNI state…), parsed. */
  async statusInfo(options?: CallOptions): Promise<Readonly<Record<string, unknown>>> {
    const status = await this.runtime('Status', { verbose: true }, options);
    return parseVerboseInfo(status.info);
  }

  async runtimeConfig(options?: CallOptions): Promise<RuntimeConfigInfo> {
    const response = await this.runtime('RuntimeConfig', {}, options);
    const driver = response.linux?.cgroupDriver;
    return {
      cgroupDriver:
        driver === 'SYSTEMD' ? 'systemd' : driver === 'CGROUPFS' ? 'cgroupfs' : 'unknown',
    };
  }

  /**
   * The runtime's cgroup driver: from RuntimeConfig where the runtime has it, else from
   * its configuration in the verbose status (containerd: `systemdCgroup`, or the default
   * runc runtime's `SystemdCgroup` option). `unknown` when neither says.
   */
  async cgroupDriver(options?: CallOptions): Promise<CgroupDriverInfo> {
    try {
      const { cgroupDriver } = await this.runtimeConfig(options);
      if (cgroupDriver !== 'unknown') return { driver: cgroupDriver, from: 'RuntimeConfig' };
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'unimplemented') throw error;
    }
    const driver = cgroupDriverFromStatus(await this.statusInfo(options));
    return driver === 'unknown' ? { driver } : { driver, from: 'runtime status' };
  }

  async listPods(filter: PodFilter = {}, options?: CallOptions): Promise<PodSandbox[]> {
    const response = await this.runtime(
      'ListPodSandbox',
      {
        filter: {
          id: filter.id ?? '',
          labelSelector: { ...filter.labels },
          ...(filter.state !== undefined && { state: { state: podStateFilter[filter.state] } }),
        },
      },
      options,
    );
    return response.items.map(toPodSandbox);
  }

  async podStatus(podSandboxId: string, options: VerboseOption = {}): Promise<PodSandboxDetail> {
    const response = await this.runtime(
      'PodSandboxStatus',
      { podSandboxId, verbose: options.verbose ?? false },
      options,
    );
    return toPodSandboxDetail(response);
  }

  async runPod(
    config: PodSandboxConfig,
    runtimeHandler = '',
    options?: CallOptions,
  ): Promise<string> {
    const response = await this.runtime('RunPodSandbox', { config, runtimeHandler }, options);
    return response.podSandboxId;
  }

  /**
   * Stops a pod as the kubelet does: its running containers first, each given
   * `gracePeriodSeconds` (SIGTERM, then SIGKILL), then the sandbox. StopPodSandbox alone
   * means different things: containerd kills the containers at once, CRI-O gives them the
   * call's deadline (less about 2 s) as their grace, so a PID 1 that ignores SIGTERM held
   * every stop for nearly the whole deadline. Its deadline is stretched by the grace too,
   * so CRI-O never cuts a grace the user chose short. A container that can't be stopped on
   * its own (gone meanwhile, say) is left to StopPodSandbox, which stops everything.
   */
  async stopPod(
    podSandboxId: string,
    gracePeriodSeconds = 0,
    options: CallOptions = {},
  ): Promise<void> {
    const running = await this.listContainers({ podSandboxId, state: 'running' }, options);
    await Promise.all(
      running.map((container) =>
        // StopPodSandbox below stops whatever is still running; this only gave it its grace.
        this.stopContainer(container.id, gracePeriodSeconds, options).catch(
          criLog.failure(`Stopping container ${container.id} before its pod failed`, 'info'),
        ),
      ),
    );
    await this.runtime(
      'StopPodSandbox',
      { podSandboxId },
      { ...options, timeoutMs: this.deadlineAfter(gracePeriodSeconds, options) },
    );
  }

  async removePod(podSandboxId: string, options?: CallOptions): Promise<void> {
    await this.runtime('RemovePodSandbox', { podSandboxId }, options);
  }

  /**
   * Creates a container. The image the config names is also sent as the one the user
   * asked for (`image.user_specified_image`), as the kubelet and crictl do, unless the
   * config says otherwise: a CRI-O with a signature policy refuses to create a container
   * without it ("User specified image not specified, cannot verify image signature").
   */
  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
    options?: CallOptions,
  ): Promise<string> {
    const response = await this.runtime(
      'CreateContainer',
      { podSandboxId, config: withUserSpecifiedImage(config), sandboxConfig },
      options,
    );
    return response.containerId;
  }

  async startContainer(containerId: string, options?: CallOptions): Promise<void> {
    await this.runtime('StartContainer', { containerId }, options);
  }

  /**
   * Stops a container, giving it `gracePeriodSeconds` before SIGKILL. The call's own
   * deadline is stretched by that grace period, or every slow stop would time out.
   */
  async stopContainer(
    containerId: string,
    gracePeriodSeconds = 10,
    options: CallOptions = {},
  ): Promise<void> {
    await this.runtime(
      'StopContainer',
      { containerId, timeout: gracePeriodSeconds },
      { ...options, timeoutMs: this.deadlineAfter(gracePeriodSeconds, options) },
    );
  }

  async removeContainer(containerId: string, options?: CallOptions): Promise<void> {
    await this.runtime('RemoveContainer', { containerId }, options);
  }

  async listContainers(filter: ContainerFilter = {}, options?: CallOptions): Promise<Container[]> {
    const response = await this.runtime(
      'ListContainers',
      {
        filter: {
          id: filter.id ?? '',
          podSandboxId: filter.podSandboxId ?? '',
          labelSelector: { ...filter.labels },
          ...(filter.state !== undefined && {
            state: { state: containerStateFilter[filter.state] },
          }),
        },
      },
      options,
    );
    return response.containers.map(toContainer);
  }

  async containerStatus(
    containerId: string,
    options: VerboseOption = {},
  ): Promise<ContainerDetail> {
    const response = await this.runtime(
      'ContainerStatus',
      { containerId, verbose: options.verbose ?? false },
      options,
    );
    return toContainerDetail(response);
  }

  /**
   * Runs a command to completion and returns its output. `timeoutSeconds` bounds the
   * command inside the runtime (0 = none); our deadline allows for it plus a margin.
   */
  async execSync(
    containerId: string,
    cmd: readonly string[],
    timeoutSeconds = 0,
    options: CallOptions = {},
  ): Promise<ExecSyncResult> {
    const response = await this.runtime(
      'ExecSync',
      { containerId, cmd: [...cmd], timeout: timeoutSeconds },
      { ...options, timeoutMs: this.deadlineAfter(timeoutSeconds, options) },
    );
    return {
      stdout: new Uint8Array(response.stdout),
      stderr: new Uint8Array(response.stderr),
      exitCode: response.exitCode,
    };
  }

  async exec(request: ExecRequest, options?: CallOptions): Promise<StreamUrl> {
    return { url: (await this.runtime('Exec', request, options)).url };
  }

  async attach(request: AttachRequest, options?: CallOptions): Promise<StreamUrl> {
    return { url: (await this.runtime('Attach', request, options)).url };
  }

  async portForward(request: PortForwardRequest, options?: CallOptions): Promise<StreamUrl> {
    return { url: (await this.runtime('PortForward', request, options)).url };
  }

  async reopenContainerLog(containerId: string, options?: CallOptions): Promise<void> {
    await this.runtime('ReopenContainerLog', { containerId }, options);
  }

  async containerStats(containerId: string, options?: CallOptions): Promise<ContainerStats> {
    const response = await this.runtime('ContainerStats', { containerId }, options);
    if (response.stats === null) throw missing('ContainerStats', containerId);
    return toContainerStats(response.stats);
  }

  async listContainerStats(
    filter: { podSandboxId?: string; labels?: Record<string, string> } = {},
    options?: CallOptions,
  ): Promise<ContainerStats[]> {
    const response = await this.runtime(
      'ListContainerStats',
      {
        filter: {
          id: '',
          podSandboxId: filter.podSandboxId ?? '',
          labelSelector: { ...filter.labels },
        },
      },
      options,
    );
    return response.stats.map(toContainerStats);
  }

  /**
   * Why this runtime must not be asked for pod sandbox stats (hazards.ts), or undefined.
   * Asks Version first when nothing has yet.
   */
  async podStatsHazard(options?: CallOptions): Promise<string | undefined> {
    const identity = this.identity ?? (await this.version(options));
    return podStatsHazard(identity);
  }

  /** Pod stats are refused here, for every caller, where asking would crash the runtime. */
  private async refuseHazardousPodStats(options?: CallOptions): Promise<void> {
    const hazard = await this.podStatsHazard(options);
    if (hazard === undefined) return;
    throw new AppError({
      code: 'failed-precondition',
      message: hazard,
      hint: "A pod's figures can be the sum of its containers'; CRI-O 1.36.4 or 1.37 has its own.",
    });
  }

  async podStats(podSandboxId: string, options?: CallOptions): Promise<PodStats> {
    await this.refuseHazardousPodStats(options);
    const response = await this.runtime('PodSandboxStats', { podSandboxId }, options);
    if (response.stats === null) throw missing('PodSandboxStats', podSandboxId);
    return toPodStats(response.stats);
  }

  async listPodStats(
    filter: { labels?: Record<string, string> } = {},
    options?: CallOptions,
  ): Promise<PodStats[]> {
    await this.refuseHazardousPodStats(options);
    const response = await this.runtime(
      'ListPodSandboxStats',
      { filter: { id: '', labelSelector: { ...filter.labels } } },
      options,
    );
    return response.stats.map(toPodStats);
  }

  /**
   * Follows container lifecycle events. On a runtime without them (containerd 1.6) the
   * observer gets an `unimplemented` error and `capabilities.containerEvents` turns
   * `unsupported`. A stream that ends at once with OK before any event is a runtime with
   * events switched off (CRI-O's default `enable_pod_events = false`): the capability
   * turns `disabled` and the observer hears `complete`. Either way callers poll instead.
   */
  watchContainerEvents(observer: {
    next(event: ContainerEvent): void;
    error(error: AppError): void;
    complete(): void;
  }): Disposable {
    let answered = false;
    return this.runtimeChannel.serverStream(
      this.services.runtime.GetContainerEvents,
      'GetContainerEvents',
      {},
      {
        next: (message) => {
          if (!answered) {
            answered = true;
            this.capabilities.observe('GetContainerEvents', 'answered');
          }
          observer.next(toContainerEvent(message));
        },
        error: (error) => {
          if (error.code === 'unimplemented')
            this.capabilities.observe('GetContainerEvents', 'unimplemented');
          observer.error(error);
        },
        complete: () => {
          if (!answered) this.capabilities.observe('GetContainerEvents', 'disabled');
          observer.complete();
        },
      },
    );
  }

  // ---- images -------------------------------------------------------------------

  async listImages(options?: CallOptions): Promise<Image[]> {
    const response = await this.images('ListImages', {}, options);
    return response.images.map(toImage);
  }

  /** The image a reference names, or undefined when the node does not have it. */
  async imageStatus(image: string, options?: CallOptions): Promise<Image | undefined> {
    const response = await this.images(
      'ImageStatus',
      { image: { image }, verbose: false },
      options,
    );
    return response.image === null ? undefined : toImage(response.image);
  }

  /** Pulls can take minutes: the default deadline is generous, and the caller may cancel. */
  async pullImage(
    image: string,
    auth?: AuthConfig,
    sandboxConfig?: PodSandboxConfig,
    options: CallOptions = {},
  ): Promise<string> {
    const response = await this.images(
      'PullImage',
      {
        image: { image },
        ...(auth !== undefined && { auth }),
        ...(sandboxConfig !== undefined && { sandboxConfig }),
      },
      { ...options, timeoutMs: options.timeoutMs ?? 15 * 60_000 },
    );
    return response.imageRef;
  }

  async removeImage(image: string, options?: CallOptions): Promise<void> {
    await this.images('RemoveImage', { image: { image } }, options);
  }

  async imageFsInfo(options?: CallOptions): Promise<ImageFilesystemUsage[]> {
    const response = await this.images('ImageFsInfo', {}, options);
    return [...response.imageFilesystems, ...response.containerFilesystems].map((usage) => {
      const usedBytes = usage.usedBytes == null ? undefined : Number(usage.usedBytes.value);
      const inodesUsed = usage.inodesUsed == null ? undefined : Number(usage.inodesUsed.value);
      return {
        mountpoint: usage.fsId?.mountpoint ?? '',
        timestamp: nanosToMillis(usage.timestamp),
        ...(usedBytes !== undefined && { usedBytes }),
        ...(inodesUsed !== undefined && { inodesUsed }),
      };
    });
  }

  // ---- capabilities -------------------------------------------------------------

  /**
   * Learns the optional capabilities from the cheapest call that proves each: the stats
   * lists are asked for rows with a label nothing carries (the answer is empty, however
   * busy the node), so no node's whole stats are read just to learn that stats exist.
   * Resolves once those calls are answered; calls that fail for other reasons (a timeout)
   * leave their capability `unknown`. The event stream is learnt in the background: a
   * runtime without it (or with it switched off) says so at once, one that has it keeps
   * the stream open, which is proof after `eventsProofMs` (capabilities.onDidChange).
   */
  async probeCapabilities(options: CallOptions = {}): Promise<Capabilities> {
    // The capability tracker has recorded each outcome (unimplemented is what a probe is
    // for); the log keeps the failures that left a capability unknown.
    const probe = (call: string, promise: Promise<unknown>): Promise<unknown> =>
      promise.catch(criLog.failure(`Capability probe ${call} failed`));
    const probeOptions = { ...options, timeoutMs: options.timeoutMs ?? 3000 };
    const nothing = { labels: { [probeLabel]: 'none' } };
    this.probeContainerEvents(options.signal);
    // A runtime that crashes on pod stats has them (CRI-O 1.35+): known without asking.
    const podStatsAvoided = await this.podStatsHazard(probeOptions).then(
      (hazard) => hazard !== undefined,
      () => false,
    );
    if (podStatsAvoided) this.capabilities.observe('ListPodSandboxStats', 'answered');
    await Promise.all([
      probe('RuntimeConfig', this.runtimeConfig(probeOptions)),
      ...(podStatsAvoided
        ? []
        : [probe('ListPodSandboxStats', this.listPodStats(nothing, probeOptions))]),
      probe('ListContainerStats', this.listContainerStats(nothing, probeOptions)),
      probe('ListMetricDescriptors', this.runtime('ListMetricDescriptors', {}, probeOptions)),
      probe('ListPodSandboxMetrics', this.runtime('ListPodSandboxMetrics', {}, probeOptions)),
      probe('ImageFsInfo', this.imageFsInfo(probeOptions)),
    ]);
    return this.capabilities.snapshot();
  }

  /**
   * A new connection to the runtime, keeping the object (everyone holding it goes on
   * using it): calls under way fail, the next one dials afresh. A runtime that restarted
   * may be another version: probe its capabilities again.
   */
  reconnect(): void {
    this.identity = undefined;
    this.runtimeChannel.reconnect();
    if (this.imageChannel !== this.runtimeChannel) this.imageChannel.reconnect();
  }

  /** Called each time the connection to the runtime service closes under us. */
  onDidDrop(listener: () => void): Disposable {
    return this.runtimeChannel.onDidDrop(listener);
  }

  dispose(): void {
    this.runtimeChannel.dispose();
    this.imageChannel.dispose();
  }

  // ---- plumbing -----------------------------------------------------------------

  /**
   * GetContainerEvents is a stream that may stay silent for a long time, so support is
   * proven by the server accepting it: runtimes without it refuse at once with
   * UNIMPLEMENTED, those with it switched off end it at once with OK, while a supporting
   * runtime keeps the stream open. Nothing waits on it: the tracker tells.
   */
  private probeContainerEvents(signal: AbortSignal | undefined): void {
    if (this.capabilities.get('containerEvents') !== 'unknown' || signal?.aborted) return;
    const timer = setTimeout(() => {
      end();
      this.capabilities.observe('GetContainerEvents', 'answered');
    }, eventsProofMs);
    timer.unref();
    const end = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', end);
      subscription.dispose();
    };
    const subscription = this.watchContainerEvents({ next: end, error: end, complete: end });
    signal?.addEventListener('abort', end, { once: true });
  }

  private deadlineAfter(seconds: number, options: CallOptions): number {
    if (options.timeoutMs !== undefined) return options.timeoutMs;
    return this.runtimeChannel.defaultTimeoutMs + seconds * 1000;
  }

  private runtime<K extends keyof CriServiceDefinitions['runtime'] & string>(
    method: K,
    request: RequestOf<CriServiceDefinitions['runtime'][K]>,
    options?: CallOptions,
  ): Promise<ResponseOf<CriServiceDefinitions['runtime'][K]>> {
    return this.call(this.runtimeChannel, this.services.runtime[method], method, request, options);
  }

  private images<K extends keyof CriServiceDefinitions['image'] & string>(
    method: K,
    request: RequestOf<CriServiceDefinitions['image'][K]>,
    options?: CallOptions,
  ): Promise<ResponseOf<CriServiceDefinitions['image'][K]>> {
    return this.call(this.imageChannel, this.services.image[method], method, request, options);
  }

  private async call<M extends AnyMethod>(
    channel: CriChannel,
    method: M,
    name: string,
    request: RequestOf<M>,
    options?: CallOptions,
  ): Promise<ResponseOf<M>> {
    try {
      const response = await channel.unary(method, name, request, options);
      this.capabilities.observe(name, 'answered');
      return response;
    } catch (error) {
      if (error instanceof AppError && error.code === 'unimplemented') {
        this.capabilities.observe(name, 'unimplemented');
      }
      throw error;
    }
  }
}

/** containerd's CRI config, as its verbose status shows it: systemd or cgroupfs, if it says. */
export function cgroupDriverFromStatus(
  info: Readonly<Record<string, unknown>>,
): CgroupDriverInfo['driver'] {
  const record = (value: unknown): Record<string, unknown> =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const config = record(info.config);
  const containerd = record(config.containerd);
  const name =
    typeof containerd.defaultRuntimeName === 'string' ? containerd.defaultRuntimeName : 'runc';
  const systemd = record(record(record(containerd.runtimes)[name]).options).SystemdCgroup;
  if (typeof systemd === 'boolean') return systemd ? 'systemd' : 'cgroupfs';
  if (typeof config.systemdCgroup === 'boolean')
    return config.systemdCgroup ? 'systemd' : 'cgroupfs';
  return 'unknown';
}

function withUserSpecifiedImage(config: ContainerConfig): ContainerConfig {
  const image = config.image;
  if (image?.image === undefined || image.image === '' || image.userSpecifiedImage) return config;
  return { ...config, image: { ...image, userSpecifiedImage: image.image } };
}

function missing(method: string, id: string): AppError {
  return new AppError({ code: 'not-found', message: `${method} returned nothing for ${id}.` });
}
