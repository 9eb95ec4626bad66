import { AppError } from '../../../../shared/errors';
import type { RuntimeInfo } from '../../../../shared/model';

/** Who a runtime says it is (the Version call). */
export type RuntimeIdentity = Pick<RuntimeInfo, 'runtimeName' | 'runtimeVersion'>;

function parseVersion(version: string): readonly [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function atLeast(v: readonly number[], floor: readonly number[]): boolean {
  for (let i = 0; i < floor.length; i++) {
    const a = v[i] ?? 0;
    const b = floor[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/**
 * Why Porthole must not ask this runtime for pod sandbox stats, or undefined when it may.
 *
 * CRI-O 1.35.0 to 1.36.3 crash (SIGSEGV in statsserver.updateSandbox) when
 * ListPodSandboxStats or PodSandboxStats meet a container whose cgroup can't be read at
 * that moment: one being created or torn down. It reads that container's stats, logs the
 * error and then uses the nil result. cri-o#10206 fixed it for 1.37.0 and for the 1.36
 * branch after 1.36.3 (a build of that branch still says 1.36.3, so it is avoided too).
 * Seen here: the lab's CRI-O 1.36.3 died this way in two test runs in a row on a loaded
 * machine, a pod starting while stats were polled. ListContainerStats skips such a
 * container and is safe.
 */
export function podStatsHazard(runtime: RuntimeIdentity): string | undefined {
  if (runtime.runtimeName !== 'cri-o') return undefined;
  const version = parseVersion(runtime.runtimeVersion);
  if (version === undefined) return undefined;
  if (!atLeast(version, [1, 35, 0]) || atLeast(version, [1, 36, 4])) return undefined;
  return (
    `CRI-O ${runtime.runtimeVersion} can crash when asked for pod stats while a container ` +
    'starts or stops (cri-o#10206, fixed in 1.36.4 and 1.37), so Porthole does not ask it.'
  );
}

/** Pod stats are refused, for every caller, where asking would crash the runtime. */
export function podStatsRefused(hazard: string): AppError {
  return new AppError({
    code: 'failed-precondition',
    message: hazard,
    hint: "A pod's figures can be the sum of its containers'; CRI-O 1.36.4 or 1.37 has its own.",
  });
}
