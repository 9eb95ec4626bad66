import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  problemRange,
  specPodName,
  specToCrictlConfigs,
  starterSpec,
  toCrictlJson,
} from './run-spec';

describe('starterSpec', () => {
  type Spec = {
    pod: { logDirectory: string; linux: { cgroupParent: string } };
    containers: { image: { image: string } }[];
  };

  it('runs busybox from the lab under a pod with a log directory', () => {
    const spec = parse(starterSpec()) as Spec;
    expect(spec.containers[0]?.image.image).toBe('localhost/porthole/busybox:latest');
    expect(spec.pod.logDirectory).toMatch(/^\//);
    // A pod-level PID namespace needs an infra container, which fails where the runtime
    // may not set OOM scores (CRI-O in the lab's sandbox): a namespace per container works.
    expect(parse(starterSpec())).toMatchObject({
      pod: { linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } } },
    });
  });

  it("gives the pod a cgroup of its own, in the form the node's driver wants", () => {
    const cgroupfs = starterSpec(
      { name: 'lab containerd-2', cgroupDriver: { driver: 'cgroupfs', from: 'RuntimeConfig' } },
      'ab12cd34',
    );
    expect((parse(cgroupfs) as Spec).pod.linux.cgroupParent).toBe('/porthole/pod-ab12cd34');
    expect(cgroupfs).toContain("lab containerd-2's cgroupfs driver wants (RuntimeConfig says so)");
    const systemd = starterSpec(
      { name: 'prod', cgroupDriver: { driver: 'systemd', from: 'runtime status' } },
      'ab12cd34',
    );
    expect((parse(systemd) as Spec).pod.linux.cgroupParent).toBe('porthole-podab12cd34.slice');
    const unknown = starterSpec({ name: 'odd', cgroupDriver: { driver: 'unknown' } }, 'x');
    expect(unknown).toContain("odd doesn't say");
    // A fresh template, a fresh cgroup: two pods never share one.
    expect(starterSpec()).not.toBe(starterSpec());
  });
});

describe('toCrictlJson', () => {
  it('renames fields to snake_case but never the keys of labels or annotations', () => {
    expect(
      toCrictlJson({
        logDirectory: '/l',
        labels: { myLabel: 'x' },
        linux: { securityContext: { namespaceOptions: { network: 'POD' } } },
      }),
    ).toEqual({
      log_directory: '/l',
      labels: { myLabel: 'x' },
      linux: { security_context: { namespace_options: { network: 'POD' } } },
    });
  });
});

describe('specToCrictlConfigs', () => {
  it('fills the defaults runFromSpec fills', () => {
    const configs = specToCrictlConfigs(starterSpec());
    expect(configs?.pod.metadata).toMatchObject({
      name: 'porthole-demo',
      namespace: 'default',
      attempt: 0,
    });
    expect((configs?.pod.metadata as { uid: string }).uid).not.toBe('');
    expect(configs?.containers[0]).toMatchObject({
      log_path: 'clock/0.log',
      metadata: { name: 'clock', attempt: 0 },
      // The pod's PID namespace mode: CRI-O refuses a container whose mode differs.
      linux: { security_context: { namespace_options: { pid: 'CONTAINER' } } },
    });
  });

  it('takes a bare pod config, and refuses what does not parse', () => {
    expect(specToCrictlConfigs('metadata: { name: solo }')?.containers).toEqual([]);
    expect(specToCrictlConfigs('pod: [')).toBeUndefined();
    expect(specToCrictlConfigs('- 1')).toBeUndefined();
  });

  it('names the pod', () => {
    expect(specPodName(starterSpec())).toBe('porthole-demo');
  });
});

describe('problemRange', () => {
  const text = 'pod:\n  metadata:\n    name: x\n';
  it('points at the column on the line', () => {
    expect(
      problemRange(text, { path: 'pod.metadata.name', line: 3, column: 5, message: '' }),
    ).toEqual({ from: 21, to: 28 });
  });

  it('starts at the indentation without a column, and stays inside the text', () => {
    expect(problemRange(text, { path: '', line: 2, message: '' })).toEqual({ from: 7, to: 16 });
    expect(problemRange(text, { path: '', line: 99, message: '' }).to).toBeLessThanOrEqual(
      text.length,
    );
  });
});
