import { describe, expect, it } from 'vitest';
import {
  type RuntimeBinaries,
  cniConflistName,
  renderCniConflist,
  renderContainerdConfig,
  runtimeSpec,
  labSlot,
  networkSpec,
  selectRuntimes,
} from './config';
import { runtimeDirs } from './state';

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
  });
});

describe('selectRuntimes', () => {
  it('accepts all, short names, ids and lists, in a fixed order', () => {
    expect(selectRuntimes(undefined)).toEqual(['containerd-1.6', 'containerd-2']);
    expect(selectRuntimes('all')).toEqual(['containerd-1.6', 'containerd-2']);
    expect(selectRuntimes('2')).toEqual(['containerd-2']);
    expect(selectRuntimes('containerd-1.6')).toEqual(['containerd-1.6']);
    expect(selectRuntimes('2,1.6')).toEqual(['containerd-1.6', 'containerd-2']);
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
