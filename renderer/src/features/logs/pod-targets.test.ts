import { describe, expect, it } from 'vitest';
import type { MergedLogSource } from '../../../../shared/model';
import { resourceKey, type ContainerItem, type PodItem } from '../resources/model';
import { labelTarget, podTarget, podTargets } from './pod-targets';
import { sourceColourClass, sourceNames } from './source-colour';

function pod(nodeId: string, id: string, name: string, labels = {}): PodItem {
  return {
    nodeId,
    id,
    name,
    namespace: 'default',
    uid: id,
    attempt: 0,
    state: 'ready',
    createdAt: 0,
    labels,
    annotations: {},
    runtimeHandler: '',
  };
}

function container(nodeId: string, podSandboxId: string, name: string, attempt = 0): ContainerItem {
  return {
    nodeId,
    id: `${podSandboxId}-${name}-${attempt}`,
    podSandboxId,
    name,
    attempt,
    image: 'busybox',
    imageRef: 'sha256:1',
    state: 'running',
    createdAt: 0,
    labels: { 'io.kubernetes.container.name': name },
    annotations: {},
  };
}

const web1 = pod('n1', 'p1', 'web-1', { app: 'web' });
const web2 = pod('n2', 'p2', 'web-2', { app: 'web' });
const db = pod('n1', 'p3', 'db', { app: 'db' });
const pods = new Map([web1, web2, db].map((p) => [resourceKey(p.nodeId, p.id), p]));
const containers = [
  container('n1', 'p1', 'sidecar'),
  container('n1', 'p1', 'app'),
  container('n1', 'p1', 'app', 1),
  container('n2', 'p2', 'app'),
  container('n1', 'p3', 'postgres'),
];

describe('merged log targets', () => {
  it("a pod's containers: the newest attempt of each, by name", () => {
    expect(podTarget(web1, containers)).toEqual({
      nodeId: 'n1',
      containerId: 'pod:p1',
      containerName: 'all containers',
      podName: 'web-1',
      namespace: 'default',
      merged: [
        { nodeId: 'n1', containerId: 'p1-app-1', containerName: 'app' },
        { nodeId: 'n1', containerId: 'p1-sidecar-0', containerName: 'sidecar' },
      ],
    });
    // Only pods of several containers are offered as one.
    expect(podTargets(containers, pods).map((target) => target.podName)).toEqual(['web-1']);
  });

  it('a label selector across pods and nodes, with pod labels', () => {
    const target = labelTarget('app=web', containers, pods);
    expect(target.merged?.map((t) => `${t.nodeId}/${t.containerId}`)).toEqual([
      'n1/p1-app-1',
      'n1/p1-sidecar-0',
      'n2/p2-app-0',
    ]);
    expect(() => labelTarget('app=none', containers, pods)).toThrow(/No container/);
    expect(() => labelTarget('=bad', containers, pods)).toThrow();
  });

  it('names sources by pod when they come from several, and colours them in turn', () => {
    const source = (podName: string, containerName: string): MergedLogSource => ({
      nodeId: 'n1',
      containerId: containerName,
      containerName,
      podName,
      path: '',
      following: true,
    });
    expect(sourceNames([source('a', 'x'), source('a', 'y')])).toEqual(['x', 'y']);
    expect(sourceNames([source('a', 'x'), source('b', 'x')])).toEqual(['a/x', 'b/x']);
    expect([0, 7, 8].map(sourceColourClass)).toEqual([
      'log-source-1',
      'log-source-8',
      'log-source-1',
    ]);
  });
});
