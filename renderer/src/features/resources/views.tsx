import { useModel, useNodes, useResources } from '../../app/context';
import type { ViewDefinition } from '../../app/registry';
import { Icon } from '../../ui/icons';
import { openPullDialog, openRunDialog } from './dialogs';
import type { ResourceKind } from './model';
import { ResourceView } from './ResourceView';
import { useHiddenCounts } from './use-rows';

/** Rows of a kind in the current scope, for the sidebar. */
/** The rows a table would show: in scope, and not of a node that is down (hidden). */
function useScopedCount(kind: ResourceKind): number | undefined {
  const scope = useNodes((state) => state.scope);
  const hidden = useHiddenCounts(kind);
  const count = useResources((state) => {
    const map = state.index[kind];
    if (state.loaded.size === 0) return undefined;
    if (scope.kind === 'all') return map.size;
    let n = 0;
    for (const item of map.values()) if (item.nodeId === scope.nodeId) n += 1;
    return n;
  });
  if (count === undefined) return undefined;
  let held = 0;
  for (const [nodeId, n] of hidden) {
    if (scope.kind === 'all' || scope.nodeId === nodeId) held += n;
  }
  return count - held;
}

function RunPodButton({ primary = false }: { primary?: boolean }) {
  const model = useModel();
  return (
    <button
      type="button"
      className={primary ? 'btn btn-primary' : 'btn'}
      onClick={() => openRunDialog(model)}
    >
      <Icon name="play" size={14} />
      Run pod…
    </button>
  );
}

function PullImageButton({ primary = false }: { primary?: boolean }) {
  const model = useModel();
  return (
    <button
      type="button"
      className={primary ? 'btn btn-primary' : 'btn'}
      onClick={() => openPullDialog(model)}
    >
      <Icon name="download" size={14} />
      Pull image…
    </button>
  );
}

function PodsView() {
  return (
    <ResourceView kind="pods" actions={<RunPodButton />} emptyAction={<RunPodButton primary />} />
  );
}

function ContainersView() {
  return (
    <ResourceView
      kind="containers"
      actions={<RunPodButton />}
      emptyAction={<RunPodButton primary />}
    />
  );
}

function ImagesView() {
  return (
    <ResourceView
      kind="images"
      actions={<PullImageButton />}
      emptyAction={<PullImageButton primary />}
    />
  );
}

export const podsView: ViewDefinition = {
  id: 'pods',
  title: 'Pods',
  section: 'Workloads',
  icon: 'pods',
  component: PodsView,
  useCount: () => useScopedCount('pods'),
};

export const containersView: ViewDefinition = {
  id: 'containers',
  title: 'Containers',
  section: 'Workloads',
  icon: 'containers',
  component: ContainersView,
  useCount: () => useScopedCount('containers'),
};

export const imagesView: ViewDefinition = {
  id: 'images',
  title: 'Images',
  section: 'Workloads',
  icon: 'images',
  component: ImagesView,
  useCount: () => useScopedCount('images'),
};
