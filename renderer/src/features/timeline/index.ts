import type { ResourceAction, ViewDefinition } from '../../app/registry';
import type { ContainerRow } from '../resources/model';
import { timelineControllerOf } from './timeline-controller';
import { emptyFilter } from './timeline-model';
import { TimelineView } from './TimelineView';

/** The Timeline view's id in the sidebar. */
export const timelineViewId = 'timeline';

export const timelineView: ViewDefinition = {
  id: timelineViewId,
  title: 'Timeline',
  section: 'Monitor',
  icon: 'record',
  component: TimelineView,
};

/** "Timeline" on a container: the timeline filtered to it (every attempt of it). */
export const containerTimelineAction: ResourceAction<ContainerRow> = {
  id: 'timeline.container',
  title: 'Timeline',
  icon: 'record',
  run(model, row) {
    timelineControllerOf(model).setFilter({
      ...emptyFilter,
      nodeId: row.nodeId,
      pod: row.podName !== '' ? `${row.namespace}/${row.podName}` : '',
      container: row.name,
    });
    model.ui.getState().navigate(timelineViewId);
  },
};
