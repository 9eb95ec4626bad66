/**
 * What each lab runtime is, and the files that configure it: containerd's config.toml,
 * CRI-O's crio.conf with its storage, registries and policy files, and a CNI conflist.
 * Pure functions of paths and settings, so they are unit-tested.
 */
import { createHash } from 'node:crypto';
import { LabError } from './exec';
import { DEFAULT_LAB_DIR, type RuntimeDirs, labDir } from './state';
import { join } from 'node:path';
import {
  LAB_IMAGES,
  LAB_RUNTIME_IDS,
  type LabCrioBinaries,
  type LabRuntimeId,
  type LabRuntimeKind,
} from './types';

export interface NetworkSpec {
  /** CNI network name: also the prefix of CNI's cached results in /var/lib/cni/results. */
  name: string;
  /** Linux bridge device (at most 15 characters). */
  bridge: string;
  subnet: string;
}

export interface RuntimeSpec {
  id: LabRuntimeId;
  kind: LabRuntimeKind;
  /** What `--runtime` accepts besides the id. */
  short: '1.6' | '2' | 'crio';
  /** containerd config schema: 2 for 1.6, 3 for 2.x; none for CRI-O. */
  configVersion?: 2 | 3;
  /** Tag in the network's names: `phlab-16`, `phlab-2`, `phlab-crio`. */
  networkTag: string;
  network: NetworkSpec;
}

const RUNTIMES: readonly Omit<RuntimeSpec, 'network'>[] = [
  {
    id: 'containerd-1.6',
    kind: 'containerd',
    short: '1.6',
    configVersion: 2,
    networkTag: '16',
  },
  { id: 'containerd-2', kind: 'containerd', short: '2', configVersion: 3, networkTag: '2' },
  { id: 'cri-o', kind: 'cri-o', short: 'crio', networkTag: 'crio' },
];

/** The daemon's name, for messages. */
export function daemonName(spec: Pick<RuntimeSpec, 'kind'>): string {
  return spec.kind === 'cri-o' ? 'crio' : 'containerd';
}

/**
 * The default lab dir is slot 0; any other lab dir gets a slot 1–63 from a hash of its
 * path, so that two labs (say a developer's and `.ci/run`'s) do not share bridges.
 */
export function labSlot(dir: string): number {
  if (dir === DEFAULT_LAB_DIR) return 0;
  return 1 + (createHash('sha256').update(dir).digest().readUInt16BE(0) % 63);
}

/**
 * Each runtime of each lab gets its own bridge and /24, so all can run at once: four
 * subnets per lab slot (three used).
 */
export function networkSpec(id: LabRuntimeId, dir: string): NetworkSpec {
  const slot = labSlot(dir);
  const index = RUNTIMES.findIndex((r) => r.id === id);
  const short = RUNTIMES[index]?.networkTag ?? id;
  const tag = slot === 0 ? '' : String(slot);
  return {
    name: `porthole-lab${tag}-${short}`,
    bridge: `phlab${tag}-${short}`,
    subnet: `10.213.${slot * 4 + index}.0/24`,
  };
}

/** The runtimes a command acts on. */
export interface RuntimeSelection {
  ids: LabRuntimeId[];
  /**
   * Chosen by default rather than by name: `up` starts these only where their programs
   * are found (CRI-O is not in Debian), and otherwise says why in one line.
   */
  optional: LabRuntimeId[];
}

/**
 * `--runtime` values: "all" (default: both containerds, and CRI-O where a `crio` is
 * found), "1.6", "2", "cri-o" (or "crio"), the ids, or a comma-separated list. A runtime
 * named is required.
 */
export function selectRuntimes(value: string | undefined): RuntimeSelection {
  if (value === undefined || value === 'all') {
    return { ids: [...LAB_RUNTIME_IDS], optional: ['cri-o'] };
  }
  const ids = new Set<LabRuntimeId>();
  for (const part of value.split(',')) {
    const wanted = part.trim();
    const spec = RUNTIMES.find((s) => s.short === wanted || s.id === wanted);
    if (spec === undefined) {
      throw new LabError(`Unknown runtime "${part}": use 1.6, 2, cri-o or all.`);
    }
    ids.add(spec.id);
  }
  return { ids: LAB_RUNTIME_IDS.filter((id) => ids.has(id)), optional: [] };
}

export function runtimeSpec(id: LabRuntimeId, dir: string = labDir()): RuntimeSpec {
  const spec = RUNTIMES.find((s) => s.id === id);
  if (spec === undefined) throw new Error(`unknown lab runtime ${id}`);
  return { ...spec, network: networkSpec(id, dir) };
}

/** Where a containerd's programs are. */
export interface RuntimeBinaries {
  containerd: string;
  ctr: string;
  /** containerd-shim-runc-v2 of the same release. */
  shim: string;
  /** runc, shared by both (Debian 12's). */
  runc: string;
  /** CNI plugin directory (bridge, host-local, portmap, loopback). */
  cniBinDir: string;
}

export interface ConfigInput {
  spec: RuntimeSpec;
  dirs: RuntimeDirs;
  bins: RuntimeBinaries;
  sandboxImage?: string;
}

/** A TOML basic string: JSON's escapes are valid TOML escapes. */
function str(value: string): string {
  return JSON.stringify(value);
}

function strList(values: readonly string[]): string {
  return `[${values.map(str).join(', ')}]`;
}

/** Snapshotters that cannot work here (or need setup) and would only log errors. */
const DISABLED_SNAPSHOTTERS = [
  'io.containerd.snapshotter.v1.aufs',
  'io.containerd.snapshotter.v1.btrfs',
  'io.containerd.snapshotter.v1.devmapper',
  'io.containerd.snapshotter.v1.zfs',
];

const HEADER = [
  '# Written by `npm run lab` (scripts/lab). Private to the lab: own socket, root, state,',
  '# CNI config and runc root, so it never touches a runtime of the host.',
];

/** containerd 1.6: config schema 2, CRI plugin io.containerd.grpc.v1.cri. */
function configV2({ dirs, bins, spec, sandboxImage }: ConfigInput): string {
  const cri = '[plugins."io.containerd.grpc.v1.cri"';
  return [
    ...HEADER,
    'version = 2',
    `root = ${str(dirs.root)}`,
    `state = ${str(dirs.state)}`,
    `disabled_plugins = ${strList(DISABLED_SNAPSHOTTERS)}`,
    '',
    '[grpc]',
    `  address = ${str(dirs.socket)}`,
    '',
    '[debug]',
    '  level = "info"',
    '',
    '[plugins]',
    '  [plugins."io.containerd.internal.v1.opt"]',
    `    path = ${str(`${dirs.root}/opt`)}`,
    '',
    `  ${cri}]`,
    `    sandbox_image = ${str(sandboxImage ?? LAB_IMAGES.pause)}`,
    '    # Required here: the sandbox lacks CAP_SYS_RESOURCE, and runc fails without it.',
    '    restrict_oom_score_adj = true',
    '    # Pod network namespaces under our state dir, not /var/run/netns.',
    '    netns_mounts_under_state_dir = true',
    '    enable_selinux = false',
    '    stream_server_address = "127.0.0.1"',
    '    stream_server_port = "0"',
    `    ${cri}.containerd]`,
    '      snapshotter = "overlayfs"',
    '      default_runtime_name = "runc"',
    `      ${cri}.containerd.runtimes.runc]`,
    '        runtime_type = "io.containerd.runc.v2"',
    `        runtime_path = ${str(bins.shim)}`,
    `        ${cri}.containerd.runtimes.runc.options]`,
    `          BinaryName = ${str(bins.runc)}`,
    `          Root = ${str(dirs.runcRoot)}`,
    '          SystemdCgroup = false',
    `    ${cri}.cni]`,
    `      bin_dir = ${str(bins.cniBinDir)}`,
    `      conf_dir = ${str(dirs.cniConfDir)}`,
    '      max_conf_num = 1',
    `    # network ${spec.network.name}: bridge ${spec.network.bridge}, ${spec.network.subnet}`,
    '',
  ].join('\n');
}

/** containerd 2.x: config schema 3, CRI split into runtime and images plugins. */
function configV3({ dirs, bins, spec, sandboxImage }: ConfigInput): string {
  const rt = "[plugins.'io.containerd.cri.v1.runtime'";
  const img = "[plugins.'io.containerd.cri.v1.images'";
  return [
    ...HEADER,
    'version = 3',
    `root = ${str(dirs.root)}`,
    `state = ${str(dirs.state)}`,
    `disabled_plugins = ${strList(DISABLED_SNAPSHOTTERS)}`,
    '',
    '[grpc]',
    `  address = ${str(dirs.socket)}`,
    '',
    '[debug]',
    "  level = 'info'",
    '',
    '[plugins]',
    "  [plugins.'io.containerd.internal.v1.opt']",
    `    path = ${str(`${dirs.root}/opt`)}`,
    '',
    '  # NRI would listen on the global /var/run/nri/nri.sock.',
    "  [plugins.'io.containerd.nri.v1.nri']",
    '    disable = true',
    '',
    `  ${img}]`,
    "    snapshotter = 'overlayfs'",
    `    ${img}.pinned_images]`,
    `      sandbox = ${str(sandboxImage ?? LAB_IMAGES.pause)}`,
    '',
    `  ${rt}]`,
    '    # Required here: the sandbox lacks CAP_SYS_RESOURCE, and runc fails without it.',
    '    restrict_oom_score_adj = true',
    '    # Pod network namespaces under our state dir, not /var/run/netns.',
    '    netns_mounts_under_state_dir = true',
    '    enable_selinux = false',
    '    enable_cdi = false',
    `    ${rt}.containerd]`,
    "      default_runtime_name = 'runc'",
    `      ${rt}.containerd.runtimes.runc]`,
    "        runtime_type = 'io.containerd.runc.v2'",
    `        runtime_path = ${str(bins.shim)}`,
    `        ${rt}.containerd.runtimes.runc.options]`,
    `          BinaryName = ${str(bins.runc)}`,
    `          Root = ${str(dirs.runcRoot)}`,
    '          SystemdCgroup = false',
    `    ${rt}.cni]`,
    `      bin_dirs = ${strList([bins.cniBinDir])}`,
    `      conf_dir = ${str(dirs.cniConfDir)}`,
    '      max_conf_num = 1',
    `    # network ${spec.network.name}: bridge ${spec.network.bridge}, ${spec.network.subnet}`,
    '',
    "  [plugins.'io.containerd.grpc.v1.cri']",
    "    stream_server_address = '127.0.0.1'",
    "    stream_server_port = '0'",
    '',
  ].join('\n');
}

export function renderContainerdConfig(input: ConfigInput): string {
  return input.spec.configVersion === 2 ? configV2(input) : configV3(input);
}

/** Every file and directory of the lab's CRI-O, all under its runtime dir. */
export interface CrioFiles {
  storageConf: string;
  registriesConf: string;
  signaturePolicy: string;
  signaturePolicyDir: string;
  /** containers/storage graph root and run root (the "root" and "state" of the runtime). */
  graphRoot: string;
  runRoot: string;
  /** version_file, version_file_persist, clean_shutdown_file live here. */
  stateDir: string;
  namespacesDir: string;
  exitsDir: string;
  /** Short: conmon's attach sockets go in `<dir>/<64-hex id>/attach` (108-byte limit). */
  attachDir: string;
  keysDir: string;
  authDir: string;
}

export function crioFiles(dirs: RuntimeDirs): CrioFiles {
  const base = dirs.base;
  return {
    storageConf: join(base, 'storage.conf'),
    registriesConf: join(base, 'registries.conf'),
    signaturePolicy: join(base, 'policy.json'),
    signaturePolicyDir: join(base, 'policies'),
    graphRoot: dirs.root,
    runRoot: dirs.state,
    stateDir: join(base, 'crio-state'),
    namespacesDir: join(base, 'ns'),
    exitsDir: join(base, 'exits'),
    attachDir: join(base, 'a'),
    keysDir: join(base, 'keys'),
    authDir: join(base, 'auth'),
  };
}

/** The storage driver of the lab's CRI-O (and of whatever imports images into it). */
export const CRIO_STORAGE_DRIVER = 'overlay';

export interface CrioConfigInput {
  spec: RuntimeSpec;
  dirs: RuntimeDirs;
  bins: LabCrioBinaries;
  /** CRI-O's own default is off; the lab turns it on (a test runs one with it off). */
  enablePodEvents?: boolean;
  pauseImage?: string;
}

/**
 * crio.conf: every path private to the lab; Debian's runc with conmon as its monitor (CRI-O
 * defaults to crun, not installed); cgroupfs; a signature policy (so CreateContainer must
 * name the image the user asked for, as the kubelet and crictl do); the stream server on
 * 127.0.0.1 with a random port; no seccomp, SELinux, hooks, CDI, NRI, metrics or
 * irqbalance files, none of which exist or may be touched here.
 */
export function renderCrioConfig(input: CrioConfigInput): string {
  const { dirs, bins, spec } = input;
  const files = crioFiles(dirs);
  return [
    ...HEADER,
    '[crio]',
    `root = ${str(files.graphRoot)}`,
    `runroot = ${str(files.runRoot)}`,
    `storage_driver = ${str(CRIO_STORAGE_DRIVER)}`,
    `log_dir = ${str(dirs.podLogDir)}`,
    `version_file = ${str(join(files.stateDir, 'version'))}`,
    `version_file_persist = ${str(join(files.stateDir, 'version-persist'))}`,
    `clean_shutdown_file = ${str(join(files.stateDir, 'clean.shutdown'))}`,
    '',
    '[crio.api]',
    `listen = ${str(dirs.socket)}`,
    'stream_address = "127.0.0.1"',
    'stream_port = "0"',
    '',
    '[crio.runtime]',
    'default_runtime = "runc"',
    'cgroup_manager = "cgroupfs"',
    'conmon_cgroup = "pod"',
    'selinux = false',
    'seccomp_profile = ""',
    'hooks_dir = []',
    'cdi_spec_dirs = []',
    'irqbalance_config_file = ""',
    'irqbalance_config_restore_file = ""',
    `pinns_path = ${str(bins.pinns)}`,
    `namespaces_dir = ${str(files.namespacesDir)}`,
    `container_exits_dir = ${str(files.exitsDir)}`,
    `container_attach_socket_dir = ${str(files.attachDir)}`,
    `decryption_keys_path = ${str(files.keysDir)}`,
    '# Pods whose PID namespace is per container need no infra container.',
    'drop_infra_ctr = true',
    '# Host ports are not used: pods are reached through port-forward only.',
    'disable_hostport_mapping = true',
    `enable_pod_events = ${String(input.enablePodEvents ?? true)}`,
    '',
    '[crio.runtime.runtimes.runc]',
    `runtime_path = ${str(bins.runc)}`,
    'runtime_type = "oci"',
    `runtime_root = ${str(dirs.runcRoot)}`,
    `monitor_path = ${str(bins.conmon)}`,
    '',
    '[crio.image]',
    `pause_image = ${str(input.pauseImage ?? LAB_IMAGES.pause)}`,
    'pause_command = "/pause"',
    `signature_policy = ${str(files.signaturePolicy)}`,
    `signature_policy_dir = ${str(files.signaturePolicyDir)}`,
    `namespaced_auth_dir = ${str(files.authDir)}`,
    '',
    '[crio.network]',
    `network_dir = ${str(dirs.cniConfDir)}`,
    `plugin_dirs = ${strList([bins.cniBinDir])}`,
    `# network ${spec.network.name}: bridge ${spec.network.bridge}, ${spec.network.subnet}`,
    '',
    '[crio.metrics]',
    'enable_metrics = false',
    '',
    '[crio.nri]',
    '# NRI would listen on the global /var/run/nri/nri.sock.',
    'enable_nri = false',
    '',
  ].join('\n');
}

/** containers-storage.conf (CONTAINERS_STORAGE_CONF): overlay in the lab's own dirs. */
export function renderStorageConf(dirs: RuntimeDirs): string {
  const files = crioFiles(dirs);
  return [
    ...HEADER,
    '[storage]',
    `driver = ${str(CRIO_STORAGE_DRIVER)}`,
    `graphroot = ${str(files.graphRoot)}`,
    `runroot = ${str(files.runRoot)}`,
    '',
  ].join('\n');
}

/** registries.conf (CONTAINERS_REGISTRIES_CONF): no search registries, nothing is pulled. */
export function renderRegistriesConf(): string {
  return [...HEADER, 'unqualified-search-registries = []', ''].join('\n');
}

/**
 * The signature policy: accept anything (there is no registry), but its presence makes
 * CRI-O check each image it creates a container from against what the user asked for.
 */
export function renderSignaturePolicy(): string {
  return `${JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }, null, 2)}\n`;
}

/**
 * The pod network: a bridge with host-local addresses (kept in our own data dir) and
 * portmap for host ports. containerd and CRI-O bring `lo` up on their own.
 * No masquerading: pods are only reached through the runtime's port-forward and exec.
 */
export function renderCniConflist(network: NetworkSpec, dirs: RuntimeDirs): string {
  const conflist = {
    cniVersion: '1.0.0',
    name: network.name,
    plugins: [
      {
        type: 'bridge',
        bridge: network.bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: network.subnet }]],
          dataDir: dirs.cniDataDir,
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  return `${JSON.stringify(conflist, null, 2)}\n`;
}

/** The file name the runtime will pick (it loads the first conflist in name order). */
export function cniConflistName(network: NetworkSpec): string {
  return `10-${network.name}.conflist`;
}
