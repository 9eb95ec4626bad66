import { describe, expect, it } from 'vitest';
import {
  type RuntimeBinaries,
  cniConflistName,
  crioFiles,
  renderCniConflist,
  renderContainerdConfig,
  renderCrioConfig,
  renderSignaturePolicy,
  renderStorageConf,
  runtimeSpec,
  labSlot,
  networkSpec,
  selectRuntimes,
} from './config';
import { runtimeDirs } from './state';
import type { LabCrioBinaries } from './types';

const bins: RuntimeBinaries = {
  containerd: '/x/containerd',
  ctr: '/x/ctr',
  shim: '/x/containerd-shim-runc-v2',
  runc: '/usr/bin/runc',
  cniBinDir: '/usr/lib/cni',
};

describe('containerd config', () => {
  it('1.6: schema 2, CRI plugin io.containerd.grpc.v1.cri, private paths', () => {
    const dirs = runtimeDirs('containerd-1.6', '/tmp/lab');
    const toml = renderContainerdConfig({
      spec: runtimeSpec('containerd-1.6', '/tmp/lab'),
      dirs,
      bins,
    });
    expect(toml).toMatch(/^version = 2$/m);
    expect(toml).toContain('[plugins."io.containerd.grpc.v1.cri"]');
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('sandbox_image = "localhost/porthole/pause:latest"');
    expect(toml).toContain('address = "/tmp/lab/containerd-1.6/containerd.sock"');
    expect(toml).toContain('root = "/tmp/lab/containerd-1.6/root"');
    expect(toml).toContain('state = "/tmp/lab/containerd-1.6/state"');
    expect(toml).toContain('conf_dir = "/tmp/lab/containerd-1.6/cni/net.d"');
    expect(toml).toContain('BinaryName = "/usr/bin/runc"');
    expect(toml).toContain('Root = "/tmp/lab/containerd-1.6/runc"');
    expect(toml).not.toContain('io.containerd.cri.v1');
  });

  it('2.x: schema 3, runtime and images plugins, pinned sandbox image, NRI off', () => {
    const dirs = runtimeDirs('containerd-2', '/tmp/lab');
    const toml = renderContainerdConfig({
      spec: runtimeSpec('containerd-2', '/tmp/lab'),
      dirs,
      bins,
    });
    expect(toml).toMatch(/^version = 3$/m);
    expect(toml).toContain("[plugins.'io.containerd.cri.v1.runtime']");
    expect(toml).toContain("[plugins.'io.containerd.cri.v1.images'.pinned_images]");
    expect(toml).toContain('sandbox = "localhost/porthole/pause:latest"');
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('runtime_path = "/x/containerd-shim-runc-v2"');
    expect(toml).toContain('BinaryName = "/usr/bin/runc"');
    expect(toml).toMatch(/\[plugins\.'io\.containerd\.nri\.v1\.nri'\]\n\s+disable = true/);
    expect(toml).not.toContain('sandbox_image');
  });

  it('escapes paths as TOML strings', () => {
    const dirs = runtimeDirs('containerd-1.6', '/tmp/a "b"');
    const toml = renderContainerdConfig({
      spec: runtimeSpec('containerd-1.6', '/tmp/lab'),
      dirs,
      bins,
    });
    expect(toml).toContain('root = "/tmp/a \\"b\\"/containerd-1.6/root"');
  });
});

describe('CRI-O config', () => {
  const crioBins: LabCrioBinaries = {
    crio: '/x/crio',
    pinns: '/x/pinns',
    conmon: '/usr/bin/conmon',
    runc: '/usr/bin/runc',
    cniBinDir: '/usr/lib/cni',
  };
  const dirs = runtimeDirs('cri-o', '/tmp/lab');
  const spec = runtimeSpec('cri-o', '/tmp/lab');

  it('keeps every path CRI-O writes under the runtime dir', () => {
    const toml = renderCrioConfig({ spec, dirs, bins: crioBins });
    const paths = [...toml.matchAll(/^\s*\w+ = "(\/[^"]*)"$/gm)].map((m) => m[1] ?? '');
    const outside = paths.filter((path) => !path.startsWith('/tmp/lab/cri-o/'));
    // Only the programs it runs live elsewhere (and /pause, inside the pause image).
    expect(outside.sort()).toEqual(['/pause', '/usr/bin/conmon', '/usr/bin/runc', '/x/pinns']);
    expect(toml).toContain('listen = "/tmp/lab/cri-o/crio.sock"');
    expect(toml).toContain('namespaced_auth_dir = "/tmp/lab/cri-o/auth"');
    expect(toml).toContain('plugin_dirs = ["/usr/lib/cni"]');
  });

  it('runs runc under conmon with cgroupfs, events on, and a signature policy', () => {
    const toml = renderCrioConfig({ spec, dirs, bins: crioBins });
    expect(toml).toContain('default_runtime = "runc"');
    expect(toml).toMatch(/\[crio\.runtime\.runtimes\.runc\]\nruntime_path = "\/usr\/bin\/runc"/);
    expect(toml).toContain('monitor_path = "/usr/bin/conmon"');
    expect(toml).toContain('cgroup_manager = "cgroupfs"');
    expect(toml).toContain('enable_pod_events = true');
    expect(toml).toContain('signature_policy = "/tmp/lab/cri-o/policy.json"');
    expect(toml).toContain('pause_image = "localhost/porthole/pause:latest"');
    expect(toml).toContain('stream_port = "0"');
    expect(toml).toContain('enable_nri = false');
    expect(renderCrioConfig({ spec, dirs, bins: crioBins, enablePodEvents: false })).toContain(
      'enable_pod_events = false',
    );
  });

  it('keeps storage private and accepts any image', () => {
    const files = crioFiles(dirs);
    expect(renderStorageConf(dirs)).toContain(`graphroot = "${files.graphRoot}"`);
    expect(renderStorageConf(dirs)).toContain(`runroot = "${files.runRoot}"`);
    expect(JSON.parse(renderSignaturePolicy())).toEqual({
      default: [{ type: 'insecureAcceptAnything' }],
    });
  });

  it('keeps conmon attach socket paths under the 108-byte limit in the CI lab', () => {
    const ci = crioFiles(runtimeDirs('cri-o', '/tmp/porthole-ci-lab'));
    expect(Buffer.byteLength(`${ci.attachDir}/${'f'.repeat(64)}/attach`)).toBeLessThan(108);
  });
});

describe('CNI', () => {
  it('bridge with host-local addresses in our own data dir, then portmap', () => {
    const spec = runtimeSpec('containerd-2', '/tmp/lab');
    const dirs = runtimeDirs('containerd-2', '/tmp/lab');
    const conf = JSON.parse(renderCniConflist(spec.network, dirs)) as {
      name: string;
      plugins: { type: string; bridge?: string; ipMasq?: boolean; ipam?: { dataDir: string } }[];
    };
    expect(conf.name).toBe(spec.network.name);
    expect(conf.plugins.map((p) => p.type)).toEqual(['bridge', 'portmap']);
    expect(conf.plugins[0]?.bridge).toBe(spec.network.bridge);
    expect(conf.plugins[0]?.ipMasq).toBe(false);
    expect(conf.plugins[0]?.ipam?.dataDir).toBe(dirs.cniDataDir);
    expect(cniConflistName(spec.network)).toMatch(/\.conflist$/);
  });

  it('gives each runtime of each lab its own network, with valid bridge names', () => {
    const dirs = ['/tmp/porthole-lab', '/tmp/porthole-ci-lab', '/tmp/other'];
    const nets = dirs.flatMap((d) => [
      networkSpec('containerd-1.6', d),
      networkSpec('containerd-2', d),
      networkSpec('cri-o', d),
    ]);
    expect(new Set(nets.map((n) => n.bridge)).size).toBe(nets.length);
    expect(new Set(nets.map((n) => n.subnet)).size).toBe(nets.length);
    expect(new Set(nets.map((n) => n.name)).size).toBe(nets.length);
    for (const n of nets) {
      expect(n.bridge.length).toBeLessThanOrEqual(15);
      expect(n.subnet).toMatch(/^10\.213\.\d{1,3}\.0\/24$/);
    }
    expect(labSlot('/tmp/porthole-lab')).toBe(0);
    expect(networkSpec('containerd-2', '/tmp/porthole-lab')).toEqual({
      name: 'porthole-lab-2',
      bridge: 'phlab-2',
      subnet: '10.213.1.0/24',
    });
    expect(networkSpec('cri-o', '/tmp/porthole-lab')).toEqual({
      name: 'porthole-lab-crio',
      bridge: 'phlab-crio',
      subnet: '10.213.2.0/24',
    });
  });
});

describe('selectRuntimes', () => {
  it('accepts all, short names, ids and lists, in a fixed order', () => {
    const ids = (value: string | undefined) => selectRuntimes(value).ids;
    expect(ids(undefined)).toEqual(['containerd-1.6', 'containerd-2', 'cri-o']);
    expect(ids('all')).toEqual(['containerd-1.6', 'containerd-2', 'cri-o']);
    expect(ids('2')).toEqual(['containerd-2']);
    expect(ids('containerd-1.6')).toEqual(['containerd-1.6']);
    expect(ids('2,1.6')).toEqual(['containerd-1.6', 'containerd-2']);
    expect(ids('cri-o')).toEqual(['cri-o']);
    expect(ids('crio,2')).toEqual(['containerd-2', 'cri-o']);
  });

  it('makes CRI-O optional only when it was not named', () => {
    expect(selectRuntimes(undefined).optional).toEqual(['cri-o']);
    expect(selectRuntimes('all').optional).toEqual(['cri-o']);
    expect(selectRuntimes('cri-o').optional).toEqual([]);
  });

  it('rejects unknown names', () => {
    expect(() => selectRuntimes('1.7')).toThrow(/Unknown runtime "1.7"/);
  });
});

describe('runtimeDirs', () => {
  it('refuses a lab dir too long for unix sockets', () => {
    expect(() => runtimeDirs('containerd-2', `/tmp/${'x'.repeat(80)}`)).toThrow(/too long/);
  });
});
