import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  LAB_NOT_RUNNING,
  type LabInfo,
  type LabRuntime,
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  readLab,
} from './lab';

let dir: string;
let server: Server;
const saved = { ...process.env };

function runtime(id: LabRuntime['id'], socketPath: string): LabRuntime {
  return {
    id,
    kind: id === 'cri-o' ? 'cri-o' : 'containerd',
    version: '0.0.0',
    versionFull: '0.0.0',
    endpoint: `unix://${socketPath}`,
    socketPath,
    pid: process.pid,
    logFile: join(dir, 'log'),
    root: join(dir, 'root'),
    state: join(dir, 'state'),
    podLogDir: join(dir, id, 'pods'),
    importer: { kind: 'ctr', ctr: '/usr/bin/ctr', socketPath },
    configFile: join(dir, 'config.toml'),
    network: { name: 'n', bridge: 'b', subnet: '10.0.0.0/24' },
  };
}

async function writeLab(runtimes: LabRuntime[]): Promise<void> {
  const info: LabInfo = {
    labDir: dir,
    runtimes,
    images: {
      busybox: 'localhost/porthole/busybox:latest',
      pause: 'localhost/porthole/pause:latest',
    },
    cgroupRoot: '/porthole-lab',
  };
  await writeFile(join(dir, 'lab.json'), JSON.stringify(info));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'porthole-lab-test-'));
  server = createServer();
  await new Promise<void>((resolve) => server.listen(join(dir, 'c.sock'), resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.env = { ...saved };
});

describe('readLab', () => {
  it('says how to start the lab when there is none', () => {
    process.env.PORTHOLE_LAB_DIR = join(dir, 'nowhere');
    expect(() => readLab()).toThrow(LAB_NOT_RUNNING);
  });

  it('says so when a socket is gone', async () => {
    process.env.PORTHOLE_LAB_DIR = dir;
    await writeLab([runtime('containerd-2', join(dir, 'gone.sock'))]);
    expect(() => readLab()).toThrow(/not running.*gone\.sock is gone/);
  });

  it('returns the runtimes, filtered by PORTHOLE_LAB_RUNTIMES', async () => {
    process.env.PORTHOLE_LAB_DIR = dir;
    const sock = join(dir, 'c.sock');
    await writeLab([runtime('containerd-1.6', sock), runtime('containerd-2', sock)]);
    expect(labRuntimes().map((r) => r.id)).toEqual(['containerd-1.6', 'containerd-2']);
    process.env.PORTHOLE_LAB_RUNTIMES = '2';
    expect(labRuntimes().map((r) => r.id)).toEqual(['containerd-2']);
    process.env.PORTHOLE_LAB_RUNTIMES = '1.7';
    expect(() => labRuntimes()).toThrow(/matches none/);
  });
});

describe('podSandboxConfig', () => {
  it('is a minimal kubelet-like config with logs and cgroup per pod', () => {
    const rt = runtime('containerd-2', '/x.sock');
    const config = podSandboxConfig('web', { runtime: rt, uid: 'u1', labels: { app: 'web' } });
    expect(config).toEqual({
      metadata: { name: 'web', uid: 'u1', namespace: 'porthole-test', attempt: 0 },
      hostname: 'web',
      logDirectory: join(rt.podLogDir, 'porthole-test_web_u1'),
      portMappings: [],
      labels: { 'porthole.test': 'true', app: 'web' },
      annotations: {},
      linux: {
        cgroupParent: '/porthole-lab/containerd-2/pod-u1',
        securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } },
      },
    });
  });

  it('makes a new uid each time, and can leave out the cgroup parent', () => {
    const rt = runtime('containerd-1.6', '/x.sock');
    const a = podSandboxConfig('p', { runtime: rt, cgroupParent: false });
    const b = podSandboxConfig('p', { runtime: rt });
    expect(a.metadata.uid).not.toBe(b.metadata.uid);
    expect(a.linux?.cgroupParent).toBeUndefined();
  });
});

describe('busyboxContainerConfig', () => {
  it('runs the command in the lab busybox image', () => {
    const config = busyboxContainerConfig('main', ['sleep', '60'], { env: { A: '1' }, tty: true });
    expect(config.metadata).toEqual({ name: 'main', attempt: 0 });
    expect(config.image).toEqual({ image: 'localhost/porthole/busybox:latest' });
    expect(config.command).toEqual(['sleep', '60']);
    expect(config.envs).toEqual([{ key: 'A', value: '1' }]);
    expect(config.logPath).toBe('main/0.log');
    expect(config.tty).toBe(true);
    expect(config.linux?.securityContext?.namespaceOptions).toEqual({
      network: 'POD',
      pid: 'CONTAINER',
      ipc: 'POD',
    });
  });
});
