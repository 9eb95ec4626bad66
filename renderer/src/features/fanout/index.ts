import type { ResourceAction, ViewDefinition } from '../../app/registry';
import type { ContainerRow } from '../resources/model';
import { fanoutControllerOf } from './fanout-controller';
import { FanoutView } from './FanoutView';

/** The Run on many view's id in the sidebar. */
export const fanoutViewId = 'fanout';

export const fanoutView: ViewDefinition = {
  id: fanoutViewId,
  title: 'Run on many',
  section: 'Sessions',
  icon: 'terminal',
  component: FanoutView,
};

/** "Run on many…" on a container: the view with that container chosen (add more there). */
export const containerFanoutAction: ResourceAction<ContainerRow> = {
  id: 'fanout.container',
  title: 'Run on many…',
  icon: 'terminal',
  unavailable: (row) =>
    row.state === 'running' ? undefined : 'Only a running container runs commands.',
  run(model, row) {
    const controller = fanoutControllerOf(model);
    controller.choose([...controller.store.getState().form.chosen, `${row.nodeId}/${row.id}`]);
    model.ui.getState().navigate(fanoutViewId);
  },
};
