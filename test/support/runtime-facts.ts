/**
 * Where the lab's runtimes really differ, as facts the suites assert for each runtime
 * (a difference is a fact of that runtime, never a skip). Verified against containerd
 * 1.6.20 (Debian 12), 2.1.9 (Debian unstable) and CRI-O 1.36.3 with runc and conmon 2.1.6,
 * configured as scripts/lab does. The README's reach table says the same in words.
 */
import type { ErrorCode } from '../../shared/errors';
import type { LabRuntime } from './lab';

export interface RuntimeFacts {
  /** RuntimeConfig answers (with the cgroup driver); containerd 1.6 has no such method. */
  readonly runtimeConfig: boolean;
  /**
   * GetContainerEvents streams events. containerd 1.6: UNIMPLEMENTED. CRI-O: only with
   * `enable_pod_events = true`, which the lab sets (its default ends the stream at once).
   */
  readonly containerEvents: boolean;
  /** ListMetricDescriptors / ListPodSandboxMetrics answer (CRI-O; containerd: UNIMPLEMENTED). */
  readonly podMetrics: boolean;
  /**
   * PodSandboxStats carries CPU and memory for the pod itself. CRI-O under cgroupfs reports
   * none ("invalid slice name" in its log): Porthole sums the pod's containers instead.
   */
  readonly podLevelStats: boolean;
  /**
   * A ready pod started without a cgroup parent: containerd fails the whole
   * ListPodSandboxStats ("cgroupPath is empty"); CRI-O lists it like any other.
   */
  readonly podWithoutCgroupFailsPodStats: boolean;
  /** Image ids as ListImages gives them: `sha256:<hex>` (containerd), the bare hex (CRI-O). */
  readonly imageId: RegExp;
  /**
   * exec of a program that isn't there: containerd fails the stream with an InternalError
   * naming it; CRI-O ends it with exit code 255 (runc's message on stderr, none on a tty).
   */
  readonly missingProgramExitCode: number | undefined;
  /** CreateContainer without metadata: the runtime's own words. */
  readonly noMetadataMessage: string;
  /**
   * A tty exec outlives the runtime's daemon being killed. containerd: yes, the shim runs
   * it. CRI-O: no, `runc exec` runs as crio's child and the exec'd process dies with it.
   */
  readonly execSurvivesDaemon: boolean;
  /**
   * How an exec ends when its container is stopped under it. containerd: the process's own
   * exit, 137. CRI-O: 137 too, unless CRI-O's stop loop SIGKILLs the `runc exec` itself
   * first (it kills exec PIDs once the main process is gone): then its stream server sends
   * InternalError "error executing command in container: signal: killed". A race in CRI-O,
   * so both are facts of it.
   */
  readonly execEndsWithStoppedContainer: readonly ('exit-137' | 'exec-killed')[];
  /** CreateContainer with an image the runtime doesn't have. */
  readonly missingImage: { readonly code: ErrorCode; readonly message: RegExp };
}

const containerd: Omit<RuntimeFacts, 'runtimeConfig' | 'containerEvents'> = {
  podMetrics: false,
  podLevelStats: true,
  podWithoutCgroupFailsPodStats: true,
  imageId: /^sha256:[0-9a-f]{64}$/,
  missingProgramExitCode: undefined,
  execSurvivesDaemon: true,
  execEndsWithStoppedContainer: ['exit-137'],
  noMetadataMessage: 'Container config must include metadata.',
  missingImage: { code: 'not-found', message: /localhost\/porthole\/absent:1.*not found/ },
};

const facts: Readonly<Record<LabRuntime['id'], RuntimeFacts>> = {
  'containerd-1.6': { ...containerd, runtimeConfig: false, containerEvents: false },
  'containerd-2': { ...containerd, runtimeConfig: true, containerEvents: true },
  'cri-o': {
    runtimeConfig: true,
    containerEvents: true,
    podMetrics: true,
    podLevelStats: false,
    execSurvivesDaemon: false,
    execEndsWithStoppedContainer: ['exit-137', 'exec-killed'],
    podWithoutCgroupFailsPodStats: false,
    imageId: /^[0-9a-f]{64}$/,
    missingProgramExitCode: 255,
    noMetadataMessage: 'Setting container config: metadata is nil.',
    missingImage: {
      code: 'unknown',
      message: /localhost\/porthole\/absent:1" does not resolve to an image ID/,
    },
  },
};

export function runtimeFacts(runtime: Pick<LabRuntime, 'id'>): RuntimeFacts {
  return facts[runtime.id];
}

/**
 * Terminal output as a terminal shows it. CRI-O runs a tty exec behind two PTYs (its own
 * and runc's), and what the process writes before the outer one is made raw has its line
 * ends translated twice, `\r\r\n` (seen in about 1 of 20 shells on an idle machine, more
 * under load): a terminal draws that exactly as `\r\n`, so tests compare it as one.
 */
export function asTerminalShowsIt(text: string): string {
  return text.replace(/\r+\n/g, '\r\n');
}
