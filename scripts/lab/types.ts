/**
 * The shape of `<labdir>/lab.json`, written by `npm run lab -- up` and read by the tests
 * (test/support/lab.ts), the benches and anything else that wants the lab's runtimes.
 * Plain data only: this module imports nothing, so any layer's tests can use the types.
 */

/** The runtimes the lab can run, side by side. */
export type LabRuntimeId = 'containerd-1.6' | 'containerd-2';

export const LAB_RUNTIME_IDS: readonly LabRuntimeId[] = ['containerd-1.6', 'containerd-2'];

export interface LabRuntime {
  id: LabRuntimeId;
  /** The runtime's version without distribution suffixes, e.g. "1.6.20" or "2.1.9". */
  version: string;
  /** The version exactly as the runtime reports it over the CRI, e.g. "1.6.20~ds1". */
  versionFull: string;
  /** CRI endpoint in crictl's form: `unix:///…/containerd.sock`. */
  endpoint: string;
  /** The same socket as a file path. */
  socketPath: string;
  /** containerd's pid (the lab started it, the lab stops it). */
  pid: number;
  /** containerd's own log (stdout and stderr). */
  logFile: string;
  /** containerd `root` (persistent state: content, snapshots, metadata). */
  root: string;
  /** containerd `state` (runtime state: shim bundles, pod network namespaces). */
  state: string;
  /** A directory for pod `log_directory` values: container logs land under it. */
  podLogDir: string;
  /** The `ctr` binary that matches this containerd (for inspection from tests). */
  ctr: string;
  /** The containerd config file the lab wrote. */
  configFile: string;
  /** The CNI network name and bridge this runtime's pods use. */
  network: { name: string; bridge: string; subnet: string };
}

export interface LabImages {
  busybox: string;
  pause: string;
}

export interface LabInfo {
  /** The lab directory (PORTHOLE_LAB_DIR, default /tmp/porthole-lab). */
  labDir: string;
  runtimes: LabRuntime[];
  images: LabImages;
  /** Root of the cgroup tree (cgroupfs driver) that lab pods should use as parent. */
  cgroupRoot: string;
}

export const LAB_IMAGES: LabImages = {
  busybox: 'localhost/porthole/busybox:latest',
  pause: 'localhost/porthole/pause:latest',
};

/** Pods started by the tests live below this cgroup (cgroupfs paths, v1 and v2 alike). */
export const LAB_CGROUP_ROOT = '/porthole-lab';
