import type { CommandProvider, ResourceAction, ViewDefinition } from '../../app/registry';
import type { AppModel } from '../../app/model';
import type { ContainerRow, PodRow } from '../resources/model';
import { logsControllerOf } from './logs-controller';
import { LogsView } from './LogsView';
import { podTarget } from './pod-targets';

/** The Logs view's id in the sidebar. */
export const logsViewId = 'logs';

export const logsView: ViewDefinition = {
  id: logsViewId,
  title: 'Logs',
  section: 'Monitor',
  icon: 'logs',
  component: LogsView,
};

/** "Logs" on a container: its log in the Logs view, followed. */
export const containerLogsAction: ResourceAction<ContainerRow> = {
  id: 'logs.container',
  title: 'Logs',
  icon: 'logs',
  run(model, row) {
    void logsControllerOf(model).openFor({
      nodeId: row.nodeId,
      containerId: row.id,
      containerName: row.name,
      ...(row.podName !== '' && { podName: row.podName, namespace: row.namespace }),
    });
    model.ui.getState().navigate(logsViewId);
  },
};

/** "Logs (all containers)" on a pod: its containers' logs merged by time, followed. */
export const podLogsAction: ResourceAction<PodRow> = {
  id: 'logs.pod',
  title: 'Logs (all containers)',
  icon: 'logs',
  unavailable: (row) => (row.containerCount === 0 ? 'The pod has no containers.' : undefined),
  run: (model, row) => openPodLogs(model, row),
};

function openPodLogs(model: AppModel, pod: Parameters<typeof podTarget>[0]): void {
  const containers = model.resources.getState().index.containers.values();
  void logsControllerOf(model).openFor(podTarget(pod, containers));
  model.ui.getState().navigate(logsViewId);
}

/** The palette's "Logs of all containers of pod …", for the pod selected in the Pods table. */
export const logsCommands: CommandProvider = (model) => {
  const key = model.resourceViews.getState().byKind.pods.selectedKey;
  const pod = key === undefined ? undefined : model.resources.getState().index.pods.get(key);
  if (pod === undefined) return [];
  return [
    {
      id: 'logs.pod',
      title: `Logs of all containers of pod ${pod.name}`,
      group: 'Pod',
      run: () => openPodLogs(model, pod),
    },
  ];
};
