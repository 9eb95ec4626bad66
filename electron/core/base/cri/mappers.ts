/**
 * Raw CRI messages → Porthole's domain models. The rest of the app never sees proto
 * objects: field quirks (nanosecond strings, wrapper values, enum names) stop here.
 */
import type {
  Container__Output,
  ContainerStats__Output,
  ContainerStatusResponse__Output,
  CpuUsage__Output,
  FilesystemUsage__Output,
  Image__Output,
  MemoryUsage__Output,
  PodSandbox__Output,
  PodSandboxStats__Output,
  PodSandboxStatusResponse__Output,
  StatusResponse__Output,
  UInt64Value__Output,
  VersionResponse__Output,
} from '../../../../proto/gen';
import type {
  Container,
  ContainerDetail,
  ContainerState,
  ContainerStats,
  CpuUsage,
  CgroupDriverInfo,
  Image,
  ImageFilesystemUsage,
  MemoryUsage,
  Mount,
  MountPropagation,
  NamespaceMode,
  PodSandbox,
  PodSandboxDetail,
  PodStats,
  RuntimeInfo,
  VerboseInfo,
} from '../../../../shared/model';

/** CRI timestamps are int64 nanoseconds, carried as decimal strings; 0 means unset. */
export function nanosToMillis(nanos: string | number | undefined): number {
  if (nanos === undefined || nanos === '' || nanos === '0' || nanos === 0) return 0;
  return Number(BigInt(nanos) / 1_000_000n);
}

function optionalMillis(nanos: string): number | undefined {
  const millis = nanosToMillis(nanos);
  return millis === 0 ? undefined : millis;
}

function uint64(value: UInt64Value__Output | null | undefined): number | undefined {
  return value == null ? undefined : Number(value.value);
}

export function toPodState(state: string): PodSandbox['state'] {
  return state === 'SANDBOX_READY' ? 'ready' : 'notready';
}

const containerStates: Readonly<Record<string, ContainerState>> = {
  CONTAINER_CREATED: 'created',
  CONTAINER_RUNNING: 'running',
  CONTAINER_EXITED: 'exited',
};

export function toContainerState(state: string): ContainerState {
  return containerStates[state] ?? 'unknown';
}

/** Inverse of the two above, for list filters. */
export const podStateFilter = { ready: 'SANDBOX_READY', notready: 'SANDBOX_NOTREADY' } as const;
export const containerStateFilter = {
  created: 'CONTAINER_CREATED',
  running: 'CONTAINER_RUNNING',
  exited: 'CONTAINER_EXITED',
  unknown: 'CONTAINER_UNKNOWN',
} as const;

export function toPodSandbox(pod: PodSandbox__Output): PodSandbox {
  return {
    id: pod.id,
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
    uid: pod.metadata?.uid ?? '',
    attempt: pod.metadata?.attempt ?? 0,
    state: toPodState(pod.state),
    createdAt: nanosToMillis(pod.createdAt),
    labels: pod.labels,
    annotations: pod.annotations,
    runtimeHandler: pod.runtimeHandler,
  };
}

const namespaceModes: Readonly<Record<string, NamespaceMode>> = {
  POD: 'pod',
  CONTAINER: 'container',
  NODE: 'node',
  TARGET: 'target',
};

export function toPodSandboxDetail(response: PodSandboxStatusResponse__Output): PodSandboxDetail {
  const status = response.status;
  if (status === null) throw new TypeError('PodSandboxStatus returned no status');
  const options = status.linux?.namespaces?.options;
  return {
    ...toPodSandbox({ ...status, metadata: status.metadata }),
    ...(status.network?.ip ? { ip: status.network.ip } : {}),
    additionalIps: (status.network?.additionalIps ?? []).map((entry) => entry.ip),
    ...(options != null && {
      namespaces: {
        network: namespaceModes[options.network] ?? 'pod',
        pid: namespaceModes[options.pid] ?? 'pod',
        ipc: namespaceModes[options.ipc] ?? 'pod',
      },
    }),
    info: parseVerboseInfo(response.info),
  };
}

export function toContainer(container: Container__Output): Container {
  return {
    id: container.id,
    podSandboxId: container.podSandboxId,
    name: container.metadata?.name ?? '',
    attempt: container.metadata?.attempt ?? 0,
    image: container.image?.userSpecifiedImage || container.image?.image || '',
    imageRef: container.imageRef,
    state: toContainerState(container.state),
    createdAt: nanosToMillis(container.createdAt),
    labels: container.labels,
    annotations: container.annotations,
  };
}

const propagations: Readonly<Record<string, MountPropagation>> = {
  PROPAGATION_PRIVATE: 'private',
  PROPAGATION_HOST_TO_CONTAINER: 'host-to-container',
  PROPAGATION_BIDIRECTIONAL: 'bidirectional',
};

/**
 * ContainerStatus lacks the sandbox id; callers pass it from the list entry when they have
 * it. Runtimes that report it put it in the verbose info (containerd: info.sandboxID).
 */
export function toContainerDetail(
  response: ContainerStatusResponse__Output,
  podSandboxId?: string,
): ContainerDetail {
  const status = response.status;
  if (status === null) throw new TypeError('ContainerStatus returned no status');
  const info = parseVerboseInfo(response.info);
  const runtimeInfo = asRecord(info.info);
  const tty = ttyOf(runtimeInfo);
  const state = toContainerState(status.state);
  const mounts: Mount[] = status.mounts.map((mount) => ({
    containerPath: mount.containerPath,
    hostPath: mount.hostPath,
    readonly: mount.readonly,
    propagation: propagations[mount.propagation] ?? 'private',
  }));
  const startedAt = optionalMillis(status.startedAt);
  const finishedAt = optionalMillis(status.finishedAt);
  return {
    id: status.id,
    podSandboxId: podSandboxId ?? stringOrEmpty(runtimeInfo?.sandboxID),
    name: status.metadata?.name ?? '',
    attempt: status.metadata?.attempt ?? 0,
    image: status.image?.userSpecifiedImage || status.image?.image || '',
    imageRef: status.imageRef,
    state,
    createdAt: nanosToMillis(status.createdAt),
    labels: status.labels,
    annotations: status.annotations,
    ...(startedAt !== undefined && { startedAt }),
    ...(finishedAt !== undefined && { finishedAt }),
    ...(state === 'exited' && { exitCode: status.exitCode }),
    reason: status.reason,
    message: status.message,
    mounts,
    logPath: status.logPath,
    ...(tty !== undefined && { tty }),
    info,
  };
}

/**
 * Whether the container has a terminal, from the verbose info: containerd keeps the CRI
 * config (`config.tty`), CRI-O only the OCI spec (`runtimeSpec.process.terminal`). Both
 * omit false fields, so a config or process without the field means no terminal.
 */
function ttyOf(runtimeInfo: Record<string, unknown> | undefined): boolean | undefined {
  const config = asRecord(runtimeInfo?.config);
  if (config !== undefined) return config.tty === true;
  const process = asRecord(asRecord(runtimeInfo?.runtimeSpec)?.process);
  return process === undefined ? undefined : process.terminal === true;
}

export function toImage(image: Image__Output): Image {
  const user = image.uid != null ? image.uid.value : image.username;
  return {
    id: image.id,
    repoTags: image.repoTags,
    repoDigests: image.repoDigests,
    sizeBytes: Number(image.size),
    ...(user !== '' && { user: String(user) }),
    pinned: image.pinned,
  };
}

export function toRuntimeInfo(
  version: VersionResponse__Output,
  status: StatusResponse__Output,
): RuntimeInfo {
  return {
    runtimeName: version.runtimeName,
    runtimeVersion: version.runtimeVersion,
    runtimeApiVersion: version.runtimeApiVersion,
    apiVersion: version.version,
    conditions: (status.status?.conditions ?? []).map((condition) => ({
      type: condition.type,
      status: condition.status,
      reason: condition.reason,
      message: condition.message,
    })),
    handlers: status.runtimeHandlers.map((handler) => ({
      name: handler.name,
      recursiveReadOnlyMounts: handler.features?.recursiveReadOnlyMounts ?? false,
      userNamespaces: handler.features?.userNamespaces ?? false,
    })),
    ...sandboxImageOf(status.info),
  };
}

/** containerd's `config.sandboxImage` from a verbose status, if it has one. */
function sandboxImageOf(info: Readonly<Record<string, string>>): { sandboxImage?: string } {
  if (info.config === undefined) return {};
  const image = asRecord(parseVerboseInfo({ config: info.config }).config)?.sandboxImage;
  return typeof image === 'string' && image !== '' ? { sandboxImage: image } : {};
}

function toCpu(cpu: CpuUsage__Output | null): CpuUsage | undefined {
  if (cpu == null) return undefined;
  const usageCoreNanoSeconds = uint64(cpu.usageCoreNanoSeconds);
  const usageNanoCores = uint64(cpu.usageNanoCores);
  return {
    timestamp: nanosToMillis(cpu.timestamp),
    ...(usageCoreNanoSeconds !== undefined && { usageCoreNanoSeconds }),
    ...(usageNanoCores !== undefined && { usageNanoCores }),
  };
}

function toMemory(memory: MemoryUsage__Output | null): MemoryUsage | undefined {
  if (memory == null) return undefined;
  const fields = {
    workingSetBytes: uint64(memory.workingSetBytes),
    usageBytes: uint64(memory.usageBytes),
    rssBytes: uint64(memory.rssBytes),
    availableBytes: uint64(memory.availableBytes),
    pageFaults: uint64(memory.pageFaults),
    majorPageFaults: uint64(memory.majorPageFaults),
  };
  return {
    timestamp: nanosToMillis(memory.timestamp),
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
  };
}

export function toContainerStats(stats: ContainerStats__Output): ContainerStats {
  const cpu = toCpu(stats.cpu);
  const memory = toMemory(stats.memory);
  const writable = uint64(stats.writableLayer?.usedBytes);
  return {
    containerId: stats.attributes?.id ?? '',
    name: stats.attributes?.metadata?.name ?? '',
    ...(cpu !== undefined && { cpu }),
    ...(memory !== undefined && { memory }),
    ...(writable !== undefined && { writableLayerUsedBytes: writable }),
  };
}

export function toPodStats(stats: PodSandboxStats__Output): PodStats {
  const linux = stats.linux;
  const cpu = toCpu(linux?.cpu ?? null);
  const memory = toMemory(linux?.memory ?? null);
  const processCount = uint64(linux?.process?.processCount);
  const podSandboxId = stats.attributes?.id ?? '';
  return {
    podSandboxId,
    name: stats.attributes?.metadata?.name ?? '',
    namespace: stats.attributes?.metadata?.namespace ?? '',
    ...(cpu !== undefined && { cpu }),
    ...(memory !== undefined && { memory }),
    ...(processCount !== undefined && { processCount }),
    containers: (linux?.containers ?? []).map((container) => ({
      ...toContainerStats(container),
      podSandboxId,
    })),
  };
}

/** Verbose info values are JSON documents as strings; keep the text when one isn't. */
export function parseVerboseInfo(info: Readonly<Record<string, string>>): VerboseInfo {
  const parsed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) {
    try {
      parsed[key] = JSON.parse(value) as unknown;
    } catch {
      parsed[key] = value;
    }
  }
  return parsed;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : '';
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

export function toImageFilesystemUsage(usage: FilesystemUsage__Output): ImageFilesystemUsage {
  const usedBytes = usage.usedBytes == null ? undefined : Number(usage.usedBytes.value);
  const inodesUsed = usage.inodesUsed == null ? undefined : Number(usage.inodesUsed.value);
  return {
    mountpoint: usage.fsId?.mountpoint ?? '',
    timestamp: nanosToMillis(usage.timestamp),
    ...(usedBytes !== undefined && { usedBytes }),
    ...(inodesUsed !== undefined && { inodesUsed }),
  };
}
