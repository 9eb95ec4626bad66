/**
 * The Logs view's choice of log: a container on the connected nodes, a pod of several as
 * one merged log, or the containers a label selector picks.
 */
import { useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { toAppErrorData } from '../../../../shared/errors';
import { useModel, useNodes, useResources } from '../../app/context';
import { resourceKey } from '../resources/model';
import type { LogsController, LogTarget } from './logs-controller';
import { labelTarget, podTargets } from './pod-targets';

function targetKey(target: Pick<LogTarget, 'nodeId' | 'containerId'>): string {
  return `${target.nodeId}\u0000${target.containerId}`;
}

/** Every container on the connected nodes, to pick one from. */
export function ContainerPicker({ controller }: { controller: LogsController }) {
  const target = useStore(controller.store, (state) => state.target);
  const containers = useResources((state) => state.index.containers);
  const pods = useResources((state) => state.index.pods);
  const nodes = useNodes((state) => state.nodes);
  const groups = useMemo(() => {
    const byNode = new Map<string, { key: string; label: string; target: LogTarget }[]>();
    // A pod's containers together, merged by time: one entry per pod of several.
    for (const target of podTargets(containers.values(), pods)) {
      const list = byNode.get(target.nodeId) ?? [];
      list.push({
        key: targetKey(target),
        label: `${target.namespace ?? ''}/${target.podName ?? ''} › all containers (${target.merged?.length ?? 0})`,
        target,
      });
      byNode.set(target.nodeId, list);
    }
    for (const container of containers.values()) {
      const pod = pods.get(resourceKey(container.nodeId, container.podSandboxId));
      const entry = {
        key: targetKey({ nodeId: container.nodeId, containerId: container.id }),
        label: `${pod === undefined ? '' : `${pod.namespace}/${pod.name} › `}${container.name} (${container.state}${container.attempt > 0 ? `, attempt ${container.attempt}` : ''})`,
        target: {
          nodeId: container.nodeId,
          containerId: container.id,
          containerName: container.name,
          ...(pod !== undefined && { podName: pod.name, namespace: pod.namespace }),
        },
      };
      const list = byNode.get(container.nodeId) ?? [];
      list.push(entry);
      byNode.set(container.nodeId, list);
    }
    return [...byNode.entries()].map(([nodeId, entries]) => ({
      nodeId,
      name: nodes.find((node) => node.nodeId === nodeId)?.name ?? nodeId,
      entries: entries.sort((a, b) => a.label.localeCompare(b.label)),
    }));
  }, [containers, pods, nodes]);
  const selected = target === undefined ? '' : targetKey(target);
  const chosen = groups
    .flatMap((group) => group.entries.map((entry) => ({ entry, node: group.name })))
    .find(({ entry }) => entry.key === selected);
  const listed = chosen !== undefined;
  return (
    <select
      className="select log-container-select"
      aria-label="Container"
      // A long pod › container name may not fit: the whole of it on hover.
      title={chosen === undefined ? undefined : `${chosen.entry.label}\non ${chosen.node}`}
      value={selected}
      onChange={(event) => {
        const entry = groups
          .flatMap((group) => group.entries)
          .find((candidate) => candidate.key === event.target.value);
        if (entry !== undefined) void controller.openFor(entry.target);
      }}
    >
      {target === undefined && <option value="">Choose a container…</option>}
      {target !== undefined && !listed && (
        <option value={selected}>
          {target.podName === undefined ? '' : `${target.podName} › `}
          {target.containerName}
          {target.merged === undefined ? ' (gone)' : ` (${target.merged.length})`}
        </option>
      )}
      {groups.map((group) => (
        <optgroup key={group.nodeId} label={group.name}>
          {group.entries.map((entry) => (
            <option key={entry.key} value={entry.key}>
              {entry.label}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}

/** Several pods' containers as one log: those a label selector picks, across the nodes. */
export function LabelPicker({ controller }: { controller: LogsController }) {
  const model = useModel();
  const [selector, setSelector] = useState('');
  const open = (): void => {
    const { containers, pods } = model.resources.getState().index;
    let target: LogTarget;
    try {
      target = labelTarget(selector.trim(), containers.values(), pods);
    } catch (error) {
      model.toasts.getState().show({
        tone: 'error',
        title: 'Could not merge those logs',
        error: toAppErrorData(error),
      });
      return;
    }
    void controller.openFor(target);
  };
  return (
    <form
      className="log-label-picker"
      onSubmit={(event) => {
        event.preventDefault();
        open();
      }}
    >
      <input
        className="input"
        type="text"
        aria-label="Merge the logs of containers with labels"
        placeholder="Merge by label: app=web"
        spellCheck={false}
        value={selector}
        onChange={(event) => setSelector(event.target.value)}
      />
    </form>
  );
}
