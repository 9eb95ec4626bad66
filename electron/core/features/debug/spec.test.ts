import { describe, expect, it } from 'vitest';
import type { ContainerDetail, PodSandboxDetail } from '../../../../shared/model';
import {
  debugBanner,
  debugContainerConfig,
  debugNamespaces,
  pidModeOf,
  sandboxConfigOf,
} from './spec';

const pod = (info: Record<string, unknown>): PodSandboxDetail => ({
  id: 'pod1',
  name: 'web',
  namespace: 'shop',
  uid: 'u1',
  attempt: 0,
  state: 'ready',
  createdAt: 0,
  labels: { app: 'web' },
  annotations: { note: 'x' },
  runtimeHandler: '',
  additionalIps: [],
  namespaces: { network: 'pod', pid: 'container', ipc: 'pod' },
  info,
});

const container = (info: Record<string, unknown>): ContainerDetail => ({
  id: 'c1',
  podSandboxId: 'pod1',
  name: 'app',
  attempt: 0,
  image: 'app:1',
  imageRef: 'sha256:1',
  state: 'running',
  createdAt: 0,
  labels: {},
  annotations: {},
  reason: '',
  message: '',
  mounts: [],
  logPath: '',
  info,
});

describe('sandboxConfigOf', () => {
  it("takes containerd's log directory and cgroup parent from its snake_case config", () => {
    const config = sandboxConfigOf(
      pod({
        info: {
          config: {
            log_directory: '/var/log/pods/shop_web_u1',
            linux: { cgroup_parent: '/kubepods/pod-u1' },
          },
        },
      }),
    );
    expect(config).toEqual({
      metadata: { name: 'web', uid: 'u1', namespace: 'shop', attempt: 0 },
      logDirectory: '/var/log/pods/shop_web_u1',
      labels: { app: 'web' },
      annotations: { note: 'x' },
      linux: {
        cgroupParent: '/kubepods/pod-u1',
        securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } },
      },
    });
  });

  it("takes CRI-O's from the infra container's annotations", () => {
    const config = sandboxConfigOf(
      pod({
        info: {
          runtimeSpec: {
            annotations: {
              'io.kubernetes.cri-o.LogPath': '/var/log/pods/shop_web_u1/abc.log',
              'io.kubernetes.cri-o.CgroupParent': '/kubepods/pod-u1',
            },
          },
        },
      }),
    );
    expect(config.logDirectory).toBe('/var/log/pods/shop_web_u1');
    expect(config.linux?.cgroupParent).toBe('/kubepods/pod-u1');
  });

  it('leaves out what the runtime does not say', () => {
    const config = sandboxConfigOf(pod({}));
    expect(config.logDirectory).toBeUndefined();
    expect(config.linux?.cgroupParent).toBeUndefined();
  });
});

describe('pidModeOf and debugNamespaces', () => {
  it('reads containerd’s mode (a number; POD, the zero value, omitted)', () => {
    const withPid = (pid?: number) =>
      container({
        info: {
          config: {
            linux: { security_context: { namespace_options: pid === undefined ? {} : { pid } } },
          },
        },
      });
    expect(pidModeOf(withPid(1))).toBe('container');
    expect(pidModeOf(withPid(2))).toBe('node');
    expect(pidModeOf(withPid())).toBe('pod');
  });

  it('reads CRI-O’s from the OCI spec: own, joined by path, or none', () => {
    const withNamespaces = (namespaces: unknown[]) =>
      container({ info: { runtimeSpec: { linux: { namespaces } } } });
    expect(pidModeOf(withNamespaces([{ type: 'pid' }, { type: 'mount' }]))).toBe('container');
    expect(pidModeOf(withNamespaces([{ type: 'pid', path: '/proc/7/ns/pid' }]))).toBe('pod');
    expect(pidModeOf(withNamespaces([{ type: 'mount' }]))).toBe('node');
    expect(pidModeOf(container({}))).toBe('container');
  });

  it('targets the container’s own PID namespace; the pod’s when it shares that', () => {
    const own = container({
      info: { config: { linux: { security_context: { namespace_options: { pid: 1 } } } } },
    });
    expect(debugNamespaces(own)).toEqual({
      network: 'POD',
      ipc: 'POD',
      pid: 'TARGET',
      targetId: 'c1',
    });
    const shared = container({ info: { config: { linux: {} } } });
    expect(debugNamespaces(shared)).toEqual({ network: 'POD', ipc: 'POD', pid: 'POD' });
  });
});

describe('debugContainerConfig', () => {
  it('is labelled for its target, interactive, with SYS_PTRACE, logging only when it can', () => {
    const config = debugContainerConfig({
      name: 'debugger-abcde',
      image: 'busybox',
      target: container({}),
      keep: true,
      logs: false,
    });
    expect(config).toMatchObject({
      metadata: { name: 'debugger-abcde', attempt: 0 },
      labels: {
        'io.porthole.debug': 'true',
        'io.porthole.debug.target-id': 'c1',
        'io.porthole.debug.target-name': 'app',
        'io.porthole.debug.keep': 'true',
      },
      stdin: true,
      tty: true,
      linux: { securityContext: { capabilities: { addCapabilities: ['SYS_PTRACE'] } } },
    });
    expect(config.logPath).toBeUndefined();
    expect(
      debugContainerConfig({
        name: 'd',
        image: 'b',
        target: container({}),
        keep: false,
        logs: true,
      }).logPath,
    ).toBe('d/0.log');
  });
});

describe('debugBanner', () => {
  it('says where the target’s processes and files are', () => {
    const base = { targetName: 'app', debugName: 'debugger-abcde', image: 'busybox' };
    expect(debugBanner({ ...base, mode: 'container', targetPid: 1 })).toBe(
      "Debugging app from debugger-abcde (busybox): app's processes are visible here (ps); app is pid 1, its filesystem is at /proc/1/root.",
    );
    expect(debugBanner({ ...base, mode: 'pod', targetPid: undefined })).toBe(
      "Debugging app from debugger-abcde (busybox): the pod's processes are visible here (ps); app's filesystem is at /proc/<pid>/root for any of its pids.",
    );
  });
});
