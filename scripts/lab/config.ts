/**
 * What each lab runtime is, and the files that configure it: containerd's config.toml
 * and a CNI conflist. Pure functions of paths and settings, so they are unit-tested.
 */
import { createHash } from 'node:crypto';
import { LabError } from './exec';
import { DEFAULT_LAB_DIR, type RuntimeDirs, labDir } from './state';
import { LAB_IMAGES, LAB_RUNTIME_IDS, type LabRuntimeId } from './types';

export interface NetworkSpec {
  /** CNI network name: also the prefix of CNI's cached results in /var/lib/cni/results. */
  name: string;
  /** Linux bridge device (at most 15 characters). */
  bridge: string;
  subnet: string;
}

export interface RuntimeSpec {
  id: LabRuntimeId;
  /** What `--runtime` accepts besides the id. */
  short: '1.6' | '2';
  /** containerd config schema: 2 for 1.6, 3 for 2.x. */
  configVersion: 2 | 3;
  network: NetworkSpec;
}

const RUNTIMES: readonly Omit<RuntimeSpec, 'network'>[] = [
  { id: 'containerd-1.6', short: '1.6', configVersion: 2 },
  { id: 'containerd-2', short: '2', configVersion: 3 },
];

/**
 * The default lab dir is slot 0; any other lab dir gets a slot 1–63 from a hash of its
 * path, so that two labs (say a developer's and `.ci/run`'s) do not share bridges.
 */
export function labSlot(dir: string): number {
  if (dir === DEFAULT_LAB_DIR) return 0;
  return 1 + (createHash('sha256').update(dir).digest().readUInt16BE(0) % 63);
}

/** Each runtime of each lab gets its own bridge and /24, so all can run at once. */
export function networkSpec(id: LabRuntimeId, dir: string): NetworkSpec {
  const slot = labSlot(dir);
  const index = RUNTIMES.findIndex((r) => r.id === id);
  const short = id === 'containerd-1.6' ? '16' : '2';
  const tag = slot === 0 ? '' : String(slot);
  return {
    name: `porthole-lab${tag}-${short}`,
    bridge: `phlab${tag}-${short}`,
    subnet: `10.213.${slot * 4 + index}.0/24`,
  };
}

/** `--runtime` values: "all" (default), "1.6", "2", the ids, or a comma-separated list. */
export function selectRuntimes(value: string | undefined): LabRuntimeId[] {
  if (value === undefined || value === 'all') return [...LAB_RUNTIME_IDS];
  const ids = new Set<LabRuntimeId>();
  for (const part of value.split(',')) {
    const spec = RUNTIMES.find((s) => s.short === part.trim() || s.id === part.trim());
    if (spec === undefined) throw new LabError(`Unknown runtime "${part}": use 1.6, 2 or all.`);
    ids.add(spec.id);
  }
  return LAB_RUNTIME_IDS.filter((id) => ids.has(id));
}

export function runtimeSpec(id: LabRuntimeId, dir: string = labDir()): RuntimeSpec {
  const spec = RUNTIMES.find((s) => s.id === id);
  if (spec === undefined) throw new Error(`unknown lab runtime ${id}`);
  return { ...spec, network: networkSpec(id, dir) };
}

/** Where a runtime's programs are. */
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

/**
 * The pod network: a bridge with host-local addresses (kept in our own data dir) and
 * portmap for host ports. containerd adds the loopback plugin for `lo` on its own.
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

/** The file name containerd will pick (it loads the first conflist in name order). */
export function cniConflistName(network: NetworkSpec): string {
  return `10-${network.name}.conflist`;
}
