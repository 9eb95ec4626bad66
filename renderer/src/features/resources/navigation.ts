import type { AppModel } from '../../app/model';

/** A pod's containers: the Containers table, narrowed to that pod. */
export function showPodContainers(model: AppModel, podKey: string): void {
  const views = model.resourceViews.getState();
  views.clearFilter('containers');
  views.setFilter('containers', { podKey });
  views.closeDetail();
  model.ui.getState().navigate('containers');
}

/** A container's pod: the Pods table with the pod selected and its details open. */
export function showPod(model: AppModel, podKey: string): void {
  const views = model.resourceViews.getState();
  views.clearFilter('pods');
  views.openDetail('pods', podKey);
  model.ui.getState().navigate('pods');
}

export function showContainer(model: AppModel, containerKey: string): void {
  const views = model.resourceViews.getState();
  views.clearFilter('containers');
  views.openDetail('containers', containerKey);
  model.ui.getState().navigate('containers');
}
