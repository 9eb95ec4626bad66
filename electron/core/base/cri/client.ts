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
import { CriCalls } from './calls';
import { probeCapabilities } from './capability-probe';
import type { CapabilityTracker } from './capabilities';
import { CriChannel, type CallOptions, type StreamObserver } from './channel';
import { parseEndpoint } from './endpoint';
import { watchContainerEvents, type ContainerEvent } from './events';
import {
  cgroupDriverFromStatus,
  parseVerboseInfo,
  toContainer,
  toContainerDetail,
  toContainerStats,
  toImage,
  toImageFilesystemUsage,
  toPodSandbox,
  toPodSandboxDetail,
  toPodStats,
  toRuntimeInfo,
} from './mappers';
import { podStatsHazard, podStatsRefused, type RuntimeIdentity } from './hazards';
import {
  containerFilter,
  containerStatsFilter,
  podSandboxFilter,
  podStatsFilter,
  withUserSpecifiedImage,
  type StatsFilter,
} from './requests';
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

/**
 * Typed access to one node's RuntimeService and ImageService. One instance per endpoint,
 * each with one gRPC channel (shared when both services live on the same socket). Every
 * call has a deadline and may be cancelled; failures are AppErrors; answers are domain
 * models. Optional features are tracked in `capabilities` as calls prove them.
 */
export class CriClient implements Disposable {
  readonly capabilities: CapabilityTracker;
  /** What the last Version answer said: some runtime versions must not get some calls. */
  private identity?: RuntimeIdentity;

  private constructor(private readonly calls: CriCalls) {
    this.capabilities = calls.capabilities;
  }

  /** Parses the endpoints (throwing an AppError if unsupported); connects lazily. */
  static create(options: CriClientOptions): CriClient {
    const timeoutMs = options.timeoutMs ?? defaultCriTimeoutMs;
    const runtime = parseEndpoint(options.endpoint);
    const image = options.imageEndpoint ? parseEndpoint(options.imageEndpoint) : runtime;
    const runtimeChannel = new CriChannel(runtime, timeoutMs);
    const imageChannel =
      image.path === runtime.path ? runtimeChannel : new CriChannel(image, timeoutMs);
    return new CriClient(new CriCalls(runtimeChannel, imageChannel));
  }

  get endpoint(): string {
    return this.calls.runtimeChannel.endpoint.uri;
  }

  get imageEndpoint(): string {
    return this.calls.imageChannel.endpoint.uri;
  }

  // ---- runtime ------------------------------------------------------------------

  async version(
    options?: CallOptions,
  ): Promise<
    Pick<RuntimeInfo, 'runtimeName' | 'runtimeVersion' | 'runtimeApiVersion' | 'apiVersion'>
  > {
    const response = await this.calls.runtime('Version', { version: 'v1' }, options);
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
    const version = await this.calls.runtime('Version', { version: 'v1' }, options);
    this.identity = { runtimeName: version.runtimeName, runtimeVersion: version.runtimeVersion };
    const status = await this.calls.runtime('Status', { verbose: true }, options);
    return toRuntimeInfo(version, status);
  }

  /** The runtime's verbose status info (its configuration, CNI state…), parsed. */
  async statusInfo(options?: CallOptions): Promise<Readonly<Record<string, unknown>>> {
    const status = await this.calls.runtime('Status', { verbose: true }, options);
    return parseVerboseInfo(status.info);
  }

  async runtimeConfig(options?: CallOptions): Promise<RuntimeConfigInfo> {
    const response = await this.calls.runtime('RuntimeConfig', {}, options);
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
    const response = await this.calls.runtime(
      'ListPodSandbox',
      {
        filter: podSandboxFilter(filter),
      },
      options,
    );
    return response.items.map(toPodSandbox);
  }

  async podStatus(podSandboxId: string, options: VerboseOption = {}): Promise<PodSandboxDetail> {
    const response = await this.calls.runtime(
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
    const response = await this.calls.runtime('RunPodSandbox', { config, runtimeHandler }, options);
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
    await this.calls.runtime(
      'StopPodSandbox',
      { podSandboxId },
      { ...options, timeoutMs: this.calls.deadlineAfter(gracePeriodSeconds, options) },
    );
  }

  async removePod(podSandboxId: string, options?: CallOptions): Promise<void> {
    await this.calls.runtime('RemovePodSandbox', { podSandboxId }, options);
  }

  /**
   * Creates a container. The image the config names is also sent as the one the user
   * asked for, as the kubelet and crictl do (why: `withUserSpecifiedImage`).
   */
  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
    options?: CallOptions,
  ): Promise<string> {
    const response = await this.calls.runtime(
      'CreateContainer',
      { podSandboxId, config: withUserSpecifiedImage(config), sandboxConfig },
      options,
    );
    return response.containerId;
  }

  async startContainer(containerId: string, options?: CallOptions): Promise<void> {
    await this.calls.runtime('StartContainer', { containerId }, options);
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
    await this.calls.runtime(
      'StopContainer',
      { containerId, timeout: gracePeriodSeconds },
      { ...options, timeoutMs: this.calls.deadlineAfter(gracePeriodSeconds, options) },
    );
  }

  async removeContainer(containerId: string, options?: CallOptions): Promise<void> {
    await this.calls.runtime('RemoveContainer', { containerId }, options);
  }

  async listContainers(filter: ContainerFilter = {}, options?: CallOptions): Promise<Container[]> {
    const response = await this.calls.runtime(
      'ListContainers',
      {
        filter: containerFilter(filter),
      },
      options,
    );
    return response.containers.map(toContainer);
  }

  async containerStatus(
    containerId: string,
    options: VerboseOption = {},
  ): Promise<ContainerDetail> {
    const response = await this.calls.runtime(
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
    const response = await this.calls.runtime(
      'ExecSync',
      { containerId, cmd: [...cmd], timeout: timeoutSeconds },
      { ...options, timeoutMs: this.calls.deadlineAfter(timeoutSeconds, options) },
    );
    return {
      stdout: new Uint8Array(response.stdout),
      stderr: new Uint8Array(response.stderr),
      exitCode: response.exitCode,
    };
  }

  async exec(request: ExecRequest, options?: CallOptions): Promise<StreamUrl> {
    return { url: (await this.calls.runtime('Exec', request, options)).url };
  }

  async attach(request: AttachRequest, options?: CallOptions): Promise<StreamUrl> {
    return { url: (await this.calls.runtime('Attach', request, options)).url };
  }

  async portForward(request: PortForwardRequest, options?: CallOptions): Promise<StreamUrl> {
    return { url: (await this.calls.runtime('PortForward', request, options)).url };
  }

  async reopenContainerLog(containerId: string, options?: CallOptions): Promise<void> {
    await this.calls.runtime('ReopenContainerLog', { containerId }, options);
  }

  async containerStats(containerId: string, options?: CallOptions): Promise<ContainerStats> {
    const response = await this.calls.runtime('ContainerStats', { containerId }, options);
    if (response.stats === null) throw missing('ContainerStats', containerId);
    return toContainerStats(response.stats);
  }

  async listContainerStats(
    filter: StatsFilter = {},
    options?: CallOptions,
  ): Promise<ContainerStats[]> {
    const response = await this.calls.runtime(
      'ListContainerStats',
      { filter: containerStatsFilter(filter) },
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
    if (hazard !== undefined) throw podStatsRefused(hazard);
  }

  async podStats(podSandboxId: string, options?: CallOptions): Promise<PodStats> {
    await this.refuseHazardousPodStats(options);
    const response = await this.calls.runtime('PodSandboxStats', { podSandboxId }, options);
    if (response.stats === null) throw missing('PodSandboxStats', podSandboxId);
    return toPodStats(response.stats);
  }

  async listPodStats(
    filter: Omit<StatsFilter, 'podSandboxId'> = {},
    options?: CallOptions,
  ): Promise<PodStats[]> {
    await this.refuseHazardousPodStats(options);
    const response = await this.calls.runtime(
      'ListPodSandboxStats',
      { filter: podStatsFilter(filter) },
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
  watchContainerEvents(observer: StreamObserver<ContainerEvent>): Disposable {
    return watchContainerEvents(this.calls, observer);
  }

  // ---- images -------------------------------------------------------------------

  async listImages(options?: CallOptions): Promise<Image[]> {
    const response = await this.calls.images('ListImages', {}, options);
    return response.images.map(toImage);
  }

  /** The image a reference names, or undefined when the node does not have it. */
  async imageStatus(image: string, options?: CallOptions): Promise<Image | undefined> {
    const response = await this.calls.images(
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
    const response = await this.calls.images(
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
    await this.calls.images('RemoveImage', { image: { image } }, options);
  }

  async imageFsInfo(options?: CallOptions): Promise<ImageFilesystemUsage[]> {
    const response = await this.calls.images('ImageFsInfo', {}, options);
    return [...response.imageFilesystems, ...response.containerFilesystems].map(
      toImageFilesystemUsage,
    );
  }

  // ---- capabilities -------------------------------------------------------------

  /**
   * Learns the optional capabilities from the cheapest call that proves each
   * (capability-probe.ts). Resolves once the calls are answered; the event stream is
   * learnt in the background (capabilities.onDidChange).
   */
  probeCapabilities(options: CallOptions = {}): Promise<Capabilities> {
    return probeCapabilities(this, this.calls, options);
  }

  /**
   * A new connection to the runtime, keeping the object (everyone holding it goes on
   * using it): calls under way fail, the next one dials afresh. A runtime that restarted
   * may be another version: probe its capabilities again.
   */
  reconnect(): void {
    this.identity = undefined;
    this.calls.reconnect();
  }

  /** Called each time the connection to the runtime service closes under us. */
  onDidDrop(listener: () => void): Disposable {
    return this.calls.runtimeChannel.onDidDrop(listener);
  }

  dispose(): void {
    this.calls.dispose();
  }
}

function missing(method: string, id: string): AppError {
  return new AppError({ code: 'not-found', message: `${method} returned nothing for ${id}.` });
}
