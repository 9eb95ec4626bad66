import type { ResourceAction, ViewDefinition } from '../../app/registry';
import type { ContainerRow } from '../resources/model';
import { logsControllerOf } from './logs-controller';
import { LogsView } from './LogsView';

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
