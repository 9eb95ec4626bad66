/**
 * The shape of `<labdir>/lab.json`, written by `npm run lab -- up` and read by the tests
 * (test/support/lab.ts), the benches and anything else that wants the lab's runtimes.
 * Plain data only: this module imports nothing, so any layer's tests can use the types.
 */

/** The runtimes the lab can run, side by side. */
export type LabRuntimeId = 'containerd-1.6' | 'containerd-2' | 'cri-o';

/** In a fixed order: the tests list runtimes this way. */
export const LAB_RUNTIME_IDS: readonly LabRuntimeId[] = ['containerd-1.6', 'containerd-2', 'cri-o'];

/** Which daemon a runtime is (what it reports as its `runtimeName`). */
export type LabRuntimeKind = 'containerd' | 'cri-o';

/**
 * How images get into a runtime without a registry: containerd's `ctr images import`, or
 * CRI-O's storage written directly (`copyimg`, or Debian's `skopeo`) — see images-import.ts.
 */
export type LabImageImporter =
  | { kind: 'ctr'; ctr: string; socketPath: string }
  | {
      kind: 'copyimg' | 'skopeo';
      program: string;
      storageDriver: string;
      graphRoot: string;
      runRoot: string;
      signaturePolicy: string;
    };

/** The programs a CRI-O of the lab runs with (so a test can start a private one). */
export interface LabCrioBinaries {
  crio: string;
  pinns: string;
  conmon: string;
  runc: string;
  cniBinDir: string;
}

export interface LabRuntime {
  id: LabRuntimeId;
  kind: LabRuntimeKind;
  /** The runtime's version without distribution suffixes, e.g. "1.6.20" or "2.1.9". */
  version: string;
  /** The version exactly as the runtime reports it over the CRI, e.g. "1.6.20~ds1". */
  versionFull: string;
  /** CRI endpoint in crictl's form: `unix:///…/containerd.sock`. */
  endpoint: string;
  /** The same socket as a file path. */
  socketPath: string;
  /** The daemon's pid (the lab started it, the lab stops it). */
  pid: number;
  /** The daemon's own log (stdout and stderr). */
  logFile: string;
  /** Persistent state: containerd `root` (content, snapshots), CRI-O's storage graph root. */
  root: string;
  /** Runtime state: containerd `state` (shim bundles, netns), CRI-O's storage run root. */
  state: string;
  /** A directory for pod `log_directory` values: container logs land under it. */
  podLogDir: string;
  /** How the lab imports images into this runtime (tests import throwaway images too). */
  importer: LabImageImporter;
  /** The config file the lab wrote (containerd's config.toml, crio.conf). */
  configFile: string;
  /** The CNI network name and bridge this runtime's pods use. */
  network: { name: string; bridge: string; subnet: string };
  /** CRI-O only: its programs. */
  crio?: LabCrioBinaries;
}

/** A runtime `up` was asked for (by default) but could not start, and why, in one line. */
export interface LabSkippedRuntime {
  id: LabRuntimeId;
  reason: string;
}

export interface LabImages {
  busybox: string;
  pause: string;
}

export interface LabInfo {
  /** The lab directory (PORTHOLE_LAB_DIR, default /tmp/porthole-lab). */
  labDir: string;
  runtimes: LabRuntime[];
  /** Runtimes of the default set that are not running here (no `crio` binary), and why. */
  skipped?: LabSkippedRuntime[];
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
