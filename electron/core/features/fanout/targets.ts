/**
 * Finding a run's containers: the running ones that match, on each node in scope, with
 * their pod's name; a node that can't be searched (not connected, its list failed) is a
 * row of its own, with why.
 */
import { toAppErrorData } from '../../../../shared/errors';
import type {
  Container,
  FanoutRow,
  FanoutTargets,
  NodeStatus,
  PodSandbox,
} from '../../../../shared/model';
import type { NodeClient } from '../nodes';
import { emptyOutput } from './output';
import {
  equalityLabels,
  matchesLabels,
  parseLabelSelector,
} from '../../../../shared/label-selector';
import { compileNamePattern } from './selector';

/** The part of the NodeManager a run needs. */
export interface FanoutNodes {
  statuses(): readonly NodeStatus[];
  client(nodeId: string): Pick<NodeClient, 'listContainers' | 'listPods'>;
  nodeName(nodeId: string): string;
}

export function rowKey(nodeId: string, containerId: string): string {
  return `${nodeId}/${containerId}`;
}

/** A row for a node that could not be searched. */
export function nodeRow(nodeId: string, nodeName: string, reason: string): FanoutRow {
  return {
    key: rowKey(nodeId, ''),
    nodeId,
    nodeName,
    containerId: '',
    containerName: '',
    podName: '',
    podNamespace: '',
    state: 'vanished',
    reason,
    stdout: emptyOutput,
    stderr: emptyOutput,
  };
}

function containerRow(
  nodeId: string,
  nodeName: string,
  container: Container,
  pod: PodSandbox | undefined,
): FanoutRow {
  return {
    key: rowKey(nodeId, container.id),
    nodeId,
    nodeName,
    containerId: container.id,
    containerName: container.name,
    podName: pod?.name ?? '',
    podNamespace: pod?.namespace ?? '',
    state: 'queued',
    stdout: emptyOutput,
    stderr: emptyOutput,
  };
}

/** Checks the targets' own syntax (selector, pattern) before any node is asked. */
export function compileTargets(targets: FanoutTargets): (container: Container) => boolean {
  switch (targets.kind) {
    case 'selection': {
      const ids = new Set(targets.containers.map((ref) => rowKey(ref.nodeId, ref.containerId)));
      return () => ids.size > 0;
    }
    case 'labels': {
      const terms = parseLabelSelector(targets.selector);
      return (container) => matchesLabels(terms, container.labels);
    }
    case 'name': {
      const pattern = compileNamePattern(targets.pattern);
      return (container) => pattern.test(container.name);
    }
  }
}

function describeState(status: NodeStatus | undefined, nodeName: string): string {
  if (status === undefined) return `Porthole does not know the node ${nodeName}.`;
  const why = status.error !== undefined ? `: ${status.error.message}` : '.';
  return `${nodeName} is ${status.state}${why}`;
}

export async function findTargets(
  nodes: FanoutNodes,
  targets: FanoutTargets,
  signal: AbortSignal,
): Promise<FanoutRow[]> {
  const matches = compileTargets(targets);
  const statuses = nodes.statuses();
  const wanted: readonly string[] =
    targets.kind === 'selection'
      ? [...new Set(targets.containers.map((ref) => ref.nodeId))]
      : (targets.nodeIds ??
        statuses.filter((status) => status.state === 'connected').map((status) => status.nodeId));
  const perNode = await Promise.all(
    wanted.map(async (nodeId): Promise<FanoutRow[]> => {
      const status = statuses.find((candidate) => candidate.nodeId === nodeId);
      const nodeName = status?.name ?? nodes.nodeName(nodeId);
      if (status?.state !== 'connected')
        return [nodeRow(nodeId, nodeName, describeState(status, nodeName))];
      try {
        const client = nodes.client(nodeId);
        const labels =
          targets.kind === 'labels' ? equalityLabels(parseLabelSelector(targets.selector)) : {};
        const [containers, pods] = await Promise.all([
          // All states for a selection: a chosen container that stopped is a row saying so.
          client.listContainers(targets.kind === 'selection' ? {} : { state: 'running', labels }, {
            signal,
          }),
          client.listPods({}, { signal }),
        ]);
        const podsById = new Map(pods.map((pod) => [pod.id, pod]));
        if (targets.kind === 'selection') {
          return selectionRows(nodeId, nodeName, targets.containers, containers, podsById);
        }
        return containers
          .filter((container) => container.state === 'running' && matches(container))
          .map((container) =>
            containerRow(nodeId, nodeName, container, podsById.get(container.podSandboxId)),
          );
      } catch (error) {
        const data = toAppErrorData(error);
        return [
          {
            ...nodeRow(
              nodeId,
              nodeName,
              `Could not list ${nodeName}'s containers: ${data.message}`,
            ),
            error: data,
          },
        ];
      }
    }),
  );
  return perNode.flat().sort(compareRows);
}

function selectionRows(
  nodeId: string,
  nodeName: string,
  refs: readonly { readonly nodeId: string; readonly containerId: string }[],
  containers: readonly Container[],
  pods: ReadonlyMap<string, PodSandbox>,
): FanoutRow[] {
  const byId = new Map(containers.map((container) => [container.id, container]));
  return refs
    .filter((ref) => ref.nodeId === nodeId)
    .map((ref) => {
      const container = byId.get(ref.containerId);
      if (container === undefined) {
        return {
          ...nodeRow(nodeId, nodeName, 'The container is gone: the runtime no longer lists it.'),
          key: rowKey(nodeId, ref.containerId),
          containerId: ref.containerId,
        };
      }
      const row = containerRow(nodeId, nodeName, container, pods.get(container.podSandboxId));
      return container.state === 'running'
        ? row
        : {
            ...row,
            state: 'vanished' as const,
            reason: `The container is ${container.state}, not running.`,
          };
    });
}

/** Node, then pod, then container name: replicas of one pod template sit together. */
export function compareRows(a: FanoutRow, b: FanoutRow): number {
  return (
    a.nodeName.localeCompare(b.nodeName) ||
    a.podNamespace.localeCompare(b.podNamespace) ||
    a.podName.localeCompare(b.podName) ||
    a.containerName.localeCompare(b.containerName) ||
    a.containerId.localeCompare(b.containerId)
  );
}
