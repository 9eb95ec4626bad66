/**
 * The lab for integration tests, benches and e2e: what `npm run lab -- up` started
 * (read from `<labdir>/lab.json`), and minimal valid CRI configs for pods and busybox
 * containers on it, as the plain camelCase objects the CRI client sends
 * (proto-loader with keepCase false, enums and longs as strings).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type {
  ContainerConfig,
  KeyValue,
  NamespaceOption,
  PodSandboxConfig,
  PortMapping,
} from '../../proto/gen';
import type { CriClient } from '../../electron/core/base/cri';
import {
  LAB_CGROUP_ROOT,
  LAB_IMAGES,
  type LabInfo,
  type LabRuntime,
  type LabRuntimeId,
  type LabSkippedRuntime,
} from '../../scripts/lab/types';

export type {
  LabImages,
  LabInfo,
  LabRuntime,
  LabRuntimeId,
  LabSkippedRuntime,
} from '../../scripts/lab/types';
export { LAB_IMAGES } from '../../scripts/lab/types';

export const LAB_NOT_RUNNING = 'The lab is not running: start it with `npm run lab -- up`';

/** The lab directory: PORTHOLE_LAB_DIR, default /tmp/porthole-lab (as scripts/lab). */
export function labDir(): string {
  return resolve(process.env.PORTHOLE_LAB_DIR ?? '/tmp/porthole-lab');
}

function notRunning(why: string): Error {
  return new Error(`${LAB_NOT_RUNNING} (${why}).`);
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The running lab. Throws an Error that says how to start it when lab.json is missing or
 * a runtime it lists is gone (socket removed or containerd dead).
 */
export function readLab(): LabInfo {
  const file = join(labDir(), 'lab.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw notRunning(`no ${file}`);
  }
  let info: LabInfo;
  try {
    info = JSON.parse(text) as LabInfo;
  } catch {
    throw notRunning(`${file} is not valid JSON`);
  }
  if (!Array.isArray(info.runtimes) || info.runtimes.length === 0) {
    throw notRunning(`${file} lists no runtime`);
  }
  for (const runtime of info.runtimes) {
    if (!isSocket(runtime.socketPath)) {
      throw notRunning(`${runtime.id}: the socket ${runtime.socketPath} is gone`);
    }
    if (!isAlive(runtime.pid)) {
      throw notRunning(`${runtime.id}: its daemon (pid ${runtime.pid}) is not running`);
    }
  }
  return info;
}

/** `1.6`, `2`, `crio` or an id (`containerd-2`, `cri-o`) names a runtime. */
export function matchesRuntime(
  runtime: Pick<LabRuntime, 'id'>,
  wanted: string | undefined,
): boolean {
  return (
    (wanted !== undefined && runtime.id === wanted) ||
    runtime.id === `containerd-${wanted}` ||
    (runtime.id === 'cri-o' && wanted === 'crio')
  );
}

/**
 * The lab's runtimes, in a fixed order (1.6, 2, CRI-O). PORTHOLE_LAB_RUNTIMES (comma-separated:
 * `1.6`, `2`, `cri-o`, or ids like `containerd-2`) narrows the list, e.g. to debug one.
 */
export function labRuntimes(): LabRuntime[] {
  const runtimes = readLab().runtimes;
  const filter = process.env.PORTHOLE_LAB_RUNTIMES?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (filter === undefined || filter.length === 0) return runtimes;
  const chosen = runtimes.filter((r) => filter.some((f) => matchesRuntime(r, f)));
  if (chosen.length === 0) {
    throw new Error(
      `PORTHOLE_LAB_RUNTIMES=${process.env.PORTHOLE_LAB_RUNTIMES} matches none of the lab's runtimes (${runtimes.map((r) => r.id).join(', ')}).`,
    );
  }
  return chosen;
}

/** One runtime by id. */
export function labRuntime(id: LabRuntimeId): LabRuntime {
  const runtime = readLab().runtimes.find((r) => r.id === id);
  if (runtime === undefined) throw notRunning(`${id} is not up`);
  return runtime;
}

/**
 * The runtime the e2e suites drive the UI with: containerd 2.x where it runs (container
 * events, the runtime most nodes have), else the last of labRuntimes(); so
 * PORTHOLE_LAB_RUNTIMES=cri-o runs the UI suites against CRI-O.
 */
export function uiRuntime(): LabRuntime {
  const runtimes = labRuntimes();
  const chosen = runtimes.find((r) => r.id === 'containerd-2') ?? runtimes[runtimes.length - 1];
  if (chosen === undefined) throw notRunning('no runtime');
  return chosen;
}

/** Runtimes `npm run lab -- up` was asked for by default but did not start, and why. */
export function labSkipped(): LabSkippedRuntime[] {
  try {
    return readLab().skipped ?? [];
  } catch {
    return [];
  }
}

/** Namespaces as the kubelet sets them: own network and IPC per pod, a PID namespace per container. */
const NAMESPACES: NamespaceOption = { network: 'POD', pid: 'CONTAINER', ipc: 'POD' };

/** Namespace of the pods the helpers create, and the label that marks them. */
export const TEST_NAMESPACE = 'porthole-test';
export const TEST_LABEL = 'porthole.test';

export interface PodSandboxOptions {
  /** Where the pod's container logs go (podLogDir); default: the first lab runtime. */
  runtime?: LabRuntime;
  uid?: string;
  namespace?: string;
  attempt?: number;
  hostname?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  portMappings?: PortMapping[];
  /**
   * cgroupfs parent for the pod (PodSandboxStats needs one). Default
   * `/porthole-lab/<runtime id>/pod-<uid>`; false for none.
   */
  cgroupParent?: string | false;
}

/** A PodSandboxConfig whose metadata and log directory are always set. */
export type LabPodSandboxConfig = PodSandboxConfig & {
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  logDirectory: string;
};

/**
 * A minimal valid PodSandboxConfig: unique uid, namespace `porthole-test`, the label
 * `porthole.test=true`, logs under the runtime's podLogDir, a per-pod cgroup parent.
 */
export function podSandboxConfig(name: string, opts: PodSandboxOptions = {}): LabPodSandboxConfig {
  const runtime = opts.runtime ?? labRuntimes()[0];
  if (runtime === undefined) throw notRunning('no runtime');
  const uid = opts.uid ?? randomUUID();
  const namespace = opts.namespace ?? TEST_NAMESPACE;
  const cgroupParent =
    opts.cgroupParent === false
      ? undefined
      : (opts.cgroupParent ?? `${LAB_CGROUP_ROOT}/${runtime.id}/pod-${uid}`);
  return {
    metadata: { name, uid, namespace, attempt: opts.attempt ?? 0 },
    hostname: opts.hostname ?? name,
    logDirectory: join(runtime.podLogDir, `${namespace}_${name}_${uid}`),
    portMappings: opts.portMappings ?? [],
    labels: { [TEST_LABEL]: 'true', ...opts.labels },
    annotations: { ...opts.annotations },
    linux: {
      ...(cgroupParent !== undefined ? { cgroupParent } : {}),
      securityContext: { namespaceOptions: { ...NAMESPACES } },
    },
  };
}

export interface ContainerOptions {
  args?: string[];
  env?: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  workingDir?: string;
  tty?: boolean;
  stdin?: boolean;
  stdinOnce?: boolean;
  attempt?: number;
  /** Image reference; default the lab's busybox. */
  image?: string;
  /** Relative to the pod's log directory; default `<name>/<attempt>.log` as the kubelet. */
  logPath?: string;
}

/** A ContainerConfig whose metadata and image are always set. */
export type LabContainerConfig = ContainerConfig & {
  metadata: { name: string; attempt: number };
  image: { image: string };
};

/**
 * CreateContainer as the kubelet does it: the directory of the container's log file is
 * created first (CRI-O and conmon don't create it; containerd does).
 */
export async function createLabContainer(
  cri: Pick<CriClient, 'createContainer'>,
  podSandboxId: string,
  config: ContainerConfig,
  podConfig: PodSandboxConfig,
): Promise<string> {
  if (podConfig.logDirectory && config.logPath) {
    mkdirSync(dirname(join(podConfig.logDirectory, config.logPath)), { recursive: true });
  }
  return cri.createContainer(podSandboxId, config, podConfig);
}

/**
 * Stops and removes every pod with these labels: a bench's own, before it starts (one an
 * interrupted run left behind) and when it ends. Failures are left for the next run.
 */
export async function removeLabelledPods(
  cri: Pick<CriClient, 'listPods' | 'stopPod' | 'removePod'>,
  labels: Record<string, string>,
): Promise<void> {
  for (const pod of await cri.listPods({ labels })) {
    await cri.stopPod(pod.id, 0).catch(() => undefined);
    await cri.removePod(pod.id).catch(() => undefined);
  }
}

/** A busybox container running `command` (e.g. `['sleep', '3600']`). */
export function busyboxContainerConfig(
  name: string,
  command: string[],
  opts: ContainerOptions = {},
): LabContainerConfig {
  const attempt = opts.attempt ?? 0;
  const envs: KeyValue[] = Object.entries(opts.env ?? {}).map(([key, value]) => ({ key, value }));
  return {
    metadata: { name, attempt },
    image: { image: opts.image ?? LAB_IMAGES.busybox },
    command,
    args: opts.args ?? [],
    workingDir: opts.workingDir ?? '',
    envs,
    labels: { [TEST_LABEL]: 'true', ...opts.labels },
    annotations: { ...opts.annotations },
    logPath: opts.logPath ?? `${name}/${attempt}.log`,
    stdin: opts.stdin ?? false,
    stdinOnce: opts.stdinOnce ?? false,
    tty: opts.tty ?? false,
    linux: { securityContext: { namespaceOptions: { ...NAMESPACES } } },
  };
}
