/**
 * What a debug container is made of, from what the runtime says of its target and pod:
 * the sandbox config CreateContainer wants again (the kubelet keeps the pod's; Porthole
 * rebuilds it from the verbose status), the namespaces to share, the labels that mark it,
 * and the line that tells the user where the target is.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { ContainerConfig, NamespaceOption, PodSandboxConfig } from '../../../../proto/gen';
import type {
  ContainerDetail,
  NamespaceMode,
  PodSandboxDetail,
  StringMap,
} from '../../../../shared/model';

/** The labels that make a container recognisably Porthole's debug container. */
export const debugLabels = {
  /** `true` on every debug container: how leftovers are found after a crash. */
  marker: 'io.porthole.debug',
  targetId: 'io.porthole.debug.target-id',
  targetName: 'io.porthole.debug.target-name',
  /** `true` when the user asked, at creation, to keep it past its terminals. */
  keep: 'io.porthole.debug.keep',
} as const;

export function isDebugContainer(labels: StringMap): boolean {
  return labels[debugLabels.marker] === 'true';
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** containerd keeps the CRI config it was given in the verbose info, in Go's snake_case. */
function containerdConfig(info: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return asRecord(asRecord(info.info)?.config) ?? {};
}

function specAnnotations(info: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return asRecord(asRecord(asRecord(info.info)?.runtimeSpec)?.annotations) ?? {};
}

/**
 * The pod's sandbox config as CreateContainer wants it. containerd reads its log directory
 * and cgroup parent from it (a container without them logs nowhere and runs outside the
 * pod's cgroup); CRI-O keeps its own copy and reads little. Both come from the verbose
 * status: containerd's `info.config`, CRI-O's annotations on the infra container's spec.
 */
export function sandboxConfigOf(pod: PodSandboxDetail): PodSandboxConfig {
  const config = containerdConfig(pod.info);
  const annotations = specAnnotations(pod.info);
  const linux = asRecord(config.linux);
  const crioLogPath = asString(annotations['io.kubernetes.cri-o.LogPath']);
  const logDirectory =
    asString(config.log_directory) ??
    (crioLogPath !== undefined ? posix.dirname(crioLogPath) : undefined);
  const cgroupParent =
    asString(linux?.cgroup_parent) ?? asString(annotations['io.kubernetes.cri-o.CgroupParent']);
  return {
    metadata: { name: pod.name, uid: pod.uid, namespace: pod.namespace, attempt: pod.attempt },
    ...(logDirectory !== undefined && { logDirectory }),
    labels: { ...pod.labels },
    annotations: { ...pod.annotations },
    linux: {
      ...(cgroupParent !== undefined && { cgroupParent }),
      ...(pod.namespaces !== undefined && {
        securityContext: {
          namespaceOptions: {
            network: criMode(pod.namespaces.network),
            pid: criMode(pod.namespaces.pid),
            ipc: criMode(pod.namespaces.ipc),
          },
        },
      }),
    },
  };
}

function criMode(mode: NamespaceMode): 'POD' | 'CONTAINER' | 'NODE' | 'TARGET' {
  return mode === 'pod'
    ? 'POD'
    : mode === 'container'
      ? 'CONTAINER'
      : mode === 'node'
        ? 'NODE'
        : 'TARGET';
}

const criModes: readonly NamespaceMode[] = ['pod', 'container', 'node', 'target'];

function modeFrom(value: unknown): NamespaceMode | undefined {
  if (typeof value === 'number') return criModes[value];
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return (criModes as readonly string[]).includes(lower) ? (lower as NamespaceMode) : undefined;
  }
  return undefined;
}

/**
 * The target's PID namespace mode. containerd says it in its config (Go omits POD, the
 * zero value); CRI-O only in the OCI spec: no pid namespace is the node's, one joined by
 * path is shared (the pod's, or another container's), one of its own is `container`.
 * Unknown is taken as `container`, the kubelet's default.
 */
export function pidModeOf(target: ContainerDetail): NamespaceMode {
  const config = containerdConfig(target.info);
  if (Object.keys(config).length > 0) {
    const options = asRecord(asRecord(asRecord(config.linux)?.security_context)?.namespace_options);
    return modeFrom(options?.pid) ?? 'pod';
  }
  const spec = asRecord(asRecord(target.info.info)?.runtimeSpec);
  const namespaces = asRecord(spec?.linux)?.namespaces;
  if (!Array.isArray(namespaces)) return 'container';
  const pid = namespaces.map(asRecord).find((ns) => ns?.type === 'pid');
  if (pid === undefined) return 'node';
  return asString(pid.path) !== undefined ? 'pod' : 'container';
}

/** The target's main process's argv, from the verbose OCI spec (both runtimes keep it). */
export function targetArgs(target: ContainerDetail): readonly string[] | undefined {
  const args = asRecord(asRecord(asRecord(target.info.info)?.runtimeSpec)?.process)?.args;
  return Array.isArray(args) && args.every((arg) => typeof arg === 'string') ? args : undefined;
}

/** The target's host pid, from the verbose info. */
export function hostPidOf(target: ContainerDetail): number | undefined {
  const pid = asRecord(target.info.info)?.pid;
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * How the debug container joins the target: its PID namespace (TARGET) when it has one
 * of its own; the pod's or the node's when it shares that (TARGET would name the same).
 * Network and IPC are the pod's, as for every container of the pod.
 */
export function debugNamespaces(target: ContainerDetail): NamespaceOption {
  const mode = pidModeOf(target);
  const pid =
    mode === 'pod'
      ? ({ pid: 'POD' } as const)
      : mode === 'node'
        ? ({ pid: 'NODE' } as const)
        : ({ pid: 'TARGET', targetId: target.id } as const);
  return { network: 'POD', ipc: 'POD', ...pid };
}

/** `debugger-` and five letters, as kubectl debug names its containers. */
export function debugContainerName(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const bytes = randomBytes(5);
  return `debugger-${[...bytes].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

export interface DebugSpecInput {
  readonly name: string;
  readonly image: string;
  readonly target: ContainerDetail;
  readonly keep: boolean;
  /** Whether the pod has a log directory the container's log can go in. */
  readonly logs: boolean;
}

/**
 * The debug container: the image's own command, with stdin and a tty as `kubectl debug
 * -it` makes it (a shell that waits on its open stdin keeps the container running; the
 * terminals are exec sessions beside it). SYS_PTRACE, as kubectl's `general` profile
 * adds: reading another process's `/proc/<pid>/root` or tracing it needs it when that
 * process runs as another user.
 */
export function debugContainerConfig(input: DebugSpecInput): ContainerConfig {
  const { target } = input;
  return {
    metadata: { name: input.name, attempt: 0 },
    image: { image: input.image },
    labels: {
      [debugLabels.marker]: 'true',
      [debugLabels.targetId]: target.id,
      [debugLabels.targetName]: target.name,
      ...(input.keep && { [debugLabels.keep]: 'true' }),
    },
    annotations: {},
    ...(input.logs && { logPath: `${input.name}/0.log` }),
    stdin: true,
    stdinOnce: false,
    tty: true,
    linux: {
      securityContext: {
        namespaceOptions: debugNamespaces(target),
        capabilities: { addCapabilities: ['SYS_PTRACE'], dropCapabilities: [] },
      },
    },
  };
}

/**
 * The terminal's first line: where the target's processes and files are, seen from the
 * debug container.
 */
export function debugBanner(input: {
  readonly targetName: string;
  readonly debugName: string;
  readonly image: string;
  readonly mode: NamespaceMode;
  readonly targetPid: number | undefined;
}): string {
  const { targetName: target, targetPid: pid } = input;
  const seen =
    input.mode === 'node'
      ? "the node's processes are visible here (ps)"
      : input.mode === 'pod'
        ? "the pod's processes are visible here (ps)"
        : `${target}'s processes are visible here (ps)`;
  const files =
    pid !== undefined
      ? `${target} is pid ${pid}, its filesystem is at /proc/${pid}/root`
      : `${target}'s filesystem is at /proc/<pid>/root for any of its pids`;
  return `Debugging ${target} from ${input.debugName} (${input.image}): ${seen}; ${files}.`;
}
