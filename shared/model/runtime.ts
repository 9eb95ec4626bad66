import type { ErrorCode } from '../errors';

export interface RuntimeCondition {
  readonly type: string;
  readonly status: boolean;
  readonly reason: string;
  readonly message: string;
}

export interface RuntimeHandler {
  readonly name: string;
  readonly recursiveReadOnlyMounts: boolean;
  readonly userNamespaces: boolean;
}

/** What Version and Status say about a runtime. */
export interface RuntimeInfo {
  /** e.g. "containerd", "cri-o". */
  readonly runtimeName: string;
  readonly runtimeVersion: string;
  /** The CRI API version the runtime speaks, e.g. "v1". */
  readonly runtimeApiVersion: string;
  /** Version of the kubelet runtime API the runtime was built against, e.g. "0.1.0". */
  readonly apiVersion: string;
  readonly conditions: readonly RuntimeCondition[];
  readonly handlers: readonly RuntimeHandler[];
  /**
   * The image pod sandboxes run from (the pause image), when the runtime's status says
   * (containerd 1.6: `config.sandboxImage`). Runtimes that don't say mark it `pinned`.
   */
  readonly sandboxImage?: string;
}

/** CRI features a runtime may or may not implement; probed, never assumed. */
export const capabilityNames = [
  'containerEvents',
  'runtimeConfig',
  'podSandboxStats',
  'containerStats',
  'metricDescriptors',
  'podSandboxMetrics',
  'imageFsInfo',
  'checkpointContainer',
] as const;

export type CapabilityName = (typeof capabilityNames)[number];

/**
 * `disabled`: the runtime has the method but it is switched off in its configuration
 * (CRI-O's GetContainerEvents with `enable_pod_events = false` ends at once, with OK and
 * no events).
 */
export type CapabilityState = 'supported' | 'unsupported' | 'disabled' | 'unknown';

export type Capabilities = Readonly<Record<CapabilityName, CapabilityState>>;

export interface RuntimeConfigInfo {
  readonly cgroupDriver: 'systemd' | 'cgroupfs' | 'unknown';
}

/**
 * How the runtime manages cgroups, which decides what a pod's cgroup parent must look
 * like (`/porthole/pod-x` for cgroupfs, `porthole-podx.slice` for systemd), and where
 * Porthole learned it: the RuntimeConfig call, or the runtime's verbose status (its
 * configuration, for runtimes without RuntimeConfig such as containerd 1.6).
 */
export interface CgroupDriverInfo {
  readonly driver: 'systemd' | 'cgroupfs' | 'unknown';
  readonly from?: 'RuntimeConfig' | 'runtime status';
}

/** The outcome of probing one endpoint during discovery. */
export type EndpointProbe =
  | { readonly state: 'ready'; readonly info: RuntimeInfo }
  | {
      readonly state: 'refused' | 'absent' | 'error';
      readonly errorCode: ErrorCode;
      readonly message: string;
      readonly hint?: string;
    };

/**
 * Where a candidate endpoint came from, in crictl's order of precedence (Porthole's lab,
 * which crictl doesn't know, just before the well-known sockets).
 */
export type EndpointSource = 'explicit' | 'environment' | 'crictl-config' | 'lab' | 'well-known';

/**
 * A place discovery read endpoints from, besides the sockets it probed: a variable or a
 * file, and what it found there. Lets a fruitless Discover say where it looked.
 */
export interface DiscoverySource {
  readonly source: Exclude<EndpointSource, 'well-known'>;
  /** The variable or file, e.g. "CONTAINER_RUNTIME_ENDPOINT" or "/tmp/porthole-lab/lab.json". */
  readonly where: string;
  /**
   * `unset`: no such variable or file; `empty`: there, but it names no runtime;
   * `invalid`: there, but unusable (the warnings say why).
   */
  readonly outcome: 'used' | 'unset' | 'empty' | 'invalid';
}

export interface EndpointCandidate {
  /** Runtime endpoint, e.g. "unix:///run/containerd/containerd.sock". */
  readonly endpoint: string;
  /** Image service endpoint; equals `endpoint` unless configured apart. */
  readonly imageEndpoint: string;
  readonly source: EndpointSource;
  /** A human name for where it came from: a file, a variable, or the runtime it belongs to. */
  readonly origin: string;
  /** Per-call timeout the source asked for (crictl.yaml `timeout`), in milliseconds. */
  readonly timeoutMs?: number;
}

export interface DiscoveredEndpoint extends EndpointCandidate {
  readonly probe: EndpointProbe;
}
