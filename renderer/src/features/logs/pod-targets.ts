/**
 * Merged log targets: a pod's containers ("Logs (all containers)"), or the containers
 * a label selector picks across pods and nodes.
 */
import { AppError } from '../../../../shared/errors';
import { matchesLabels, parseLabelSelector } from '../../../../shared/label-selector';
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

/** As many as the core merges into one log. */
const maxMerged = 32;

/**
 * The containers whose labels, with their pod's (as `kubectl logs -l` matches pods),
 * match the selector, on every connected node: the newest attempt of each container of
 * each pod, ordered by pod and name (which gives each its colour).
 */
export function labelTarget(
  selector: string,
  containers: Iterable<ContainerItem>,
  pods: ReadonlyMap<string, PodItem>,
): LogTarget {
  const terms = parseLabelSelector(selector);
  const byPod = new Map<string, ContainerItem[]>();
  for (const container of containers) {
    const key = resourceKey(container.nodeId, container.podSandboxId);
    const pod = pods.get(key);
    if (!matchesLabels(terms, { ...pod?.labels, ...container.labels })) continue;
    const list = byPod.get(key) ?? [];
    list.push(container);
    byPod.set(key, list);
  }
  const podName = (key: string): string => pods.get(key)?.name ?? '';
  const merged = [...byPod.entries()]
    .sort(([a], [b]) => podName(a).localeCompare(podName(b)) || a.localeCompare(b))
    .flatMap(([, own]) => newestByName(own));
  if (merged.length === 0) {
    throw new AppError({
      code: 'not-found',
      message: `No container on the connected nodes matches ${selector}.`,
    });
  }
  if (merged.length > maxMerged) {
    throw new AppError({
      code: 'invalid-argument',
      message: `${merged.length} containers match ${selector}; Porthole merges at most ${maxMerged} logs into one.`,
      hint: 'Narrow the selector (add a term), or open a pod’s logs.',
    });
  }
  return {
    nodeId: merged[0]?.nodeId ?? '',
    containerId: `labels:${selector}`,
    containerName: `containers matching ${selector}`,
    merged,
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
