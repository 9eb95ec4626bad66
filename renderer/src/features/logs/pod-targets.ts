/** A pod's containers as one merged log target ("Logs (all containers)"). */
import type { ContainerItem, PodItem } from '../resources/model';
import { resourceKey } from '../resources/model';
import type { LogTarget, MergedTarget } from './log-types';

/**
 * The pod's containers, the newest attempt of each name, by name: that order is the
 * sources' order, which gives each container its colour, the same every time.
 */
function newestByName(containers: Iterable<ContainerItem>): MergedTarget[] {
  const byName = new Map<string, ContainerItem>();
  for (const container of containers) {
    const known = byName.get(container.name);
    if (known === undefined || container.attempt > known.attempt) {
      byName.set(container.name, container);
    }
  }
  return [...byName.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((container) => ({
      nodeId: container.nodeId,
      containerId: container.id,
      containerName: container.name,
    }));
}

export function podTarget(pod: PodItem, containers: Iterable<ContainerItem>): LogTarget {
  const own = [...containers].filter(
    (container) => container.nodeId === pod.nodeId && container.podSandboxId === pod.id,
  );
  return {
    nodeId: pod.nodeId,
    containerId: `pod:${pod.id}`,
    containerName: 'all containers',
    podName: pod.name,
    namespace: pod.namespace,
    merged: newestByName(own),
  };
}

/** A merged target for every pod with two containers or more. */
export function podTargets(
  containers: Iterable<ContainerItem>,
  pods: ReadonlyMap<string, PodItem>,
): LogTarget[] {
  const byPod = new Map<string, ContainerItem[]>();
  for (const container of containers) {
    const key = resourceKey(container.nodeId, container.podSandboxId);
    const list = byPod.get(key) ?? [];
    list.push(container);
    byPod.set(key, list);
  }
  const targets: LogTarget[] = [];
  for (const [key, own] of byPod) {
    const pod = pods.get(key);
    if (pod === undefined) continue;
    const target = podTarget(pod, own);
    if ((target.merged?.length ?? 0) > 1) targets.push(target);
  }
  return targets;
}
