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

/** The outcome of probing one endpoint during discovery. */
export type EndpointProbe =
  | { readonly state: 'ready'; readonly info: RuntimeInfo }
  | {
      readonly state: 'refused' | 'absent' | 'error';
      readonly errorCode: ErrorCode;
      readonly message: string;
      readonly hint?: string;
    };

/** Where a candidate endpoint came from, in crictl's order of precedence. */
export type EndpointSource = 'explicit' | 'environment' | 'crictl-config' | 'well-known';

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
