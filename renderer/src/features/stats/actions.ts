import type { ResourceAction } from '../../app/registry';
import type { ContainerRow, PodRow } from '../resources/model';
import { statsStoreOf } from './stats-store';

/** The Stats view's id in the sidebar. */
export const statsViewId = 'stats';

export const containerStatsAction: ResourceAction<ContainerRow> = {
  id: 'stats.container',
  title: 'Stats',
  icon: 'stats',
  unavailable: (row) =>
    row.state === 'running' ? undefined : 'Only a running container uses CPU and memory.',
  run(model, row) {
    statsStoreOf(model).focus(row.nodeId, 'containers', row.id);
    model.ui.getState().navigate(statsViewId);
  },
};

export const podStatsAction: ResourceAction<PodRow> = {
  id: 'stats.pod',
  title: 'Stats',
  icon: 'stats',
  unavailable: (row) => (row.state === 'ready' ? undefined : 'Only a ready pod has stats.'),
  run(model, row) {
    statsStoreOf(model).focus(row.nodeId, 'pods', row.id);
    model.ui.getState().navigate(statsViewId);
  },
};
